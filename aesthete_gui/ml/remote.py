"""A judge over any OpenAI-compatible chat-completions server (vLLM, SGLang, Ollama, LM Studio, …).

Images travel as base64 JPEG data URLs; requests run with bounded concurrency through
ml/chat_client.py (deadline, size cap, no redirects, retries with backoff, credentials cleared from
whatever the server sends back). A server that cannot be reached, rejects the credentials or does
not know the model raises `JudgeUnavailable` with a clear message; a request that still fails after
its retries is recorded as unparsed with the reason, and a reply whose content is not text (a
number, null, an object) is recorded as unparsed with that content kept as its raw text.
"""

from __future__ import annotations

import base64
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from typing import Any

from aesthete_gui.engine.prompts import DEFAULT_PRESET, PromptBook
from aesthete_gui.jobs import CancelToken, finished_or_cancelled, request_pool
from aesthete_gui.ml.chat_client import (
    DEFAULT_API_KEY_ENV,
    KEYRING_SERVICE,
    ChatClient,
    RequestFailed,
    check_endpoint,
    completions_url,
    content_text,
    message_content,
    raw_json,
    reply_content,
    resolve_api_key,
)
from aesthete_gui.ml.http_post import MAX_REPLY_BYTES
from aesthete_gui.ml.images import ImageUnreadable, jpeg_bytes
from aesthete_gui.ml.prompt_judge import (
    ChatRequest,
    JudgeUnavailable,
    PromptJudge,
    Reply,
    StageCallback,
)

__all__ = [
    "DEFAULT_API_KEY_ENV",
    "KEYRING_SERVICE",
    "JudgeUnavailable",
    "RemoteJudge",
    "check_endpoint",
    "completions_url",
    "image_part",
    "reply_content",
    "resolve_api_key",
]


def image_part(path: str, max_side: int) -> dict[str, Any]:
    """A chat content part carrying the image at `path` as a base64 JPEG data URL."""
    data = base64.b64encode(jpeg_bytes(path, max_side)).decode("ascii")
    return {"type": "image_url", "image_url": {"url": f"data:image/jpeg;base64,{data}"}}


class RemoteJudge(PromptJudge):
    """The engine's Judge over an OpenAI-compatible chat-completions endpoint."""

    def __init__(
        self,
        base_url: str,
        model: str,
        preset: str = DEFAULT_PRESET,
        *,
        prompts: PromptBook | None = None,
        api_key: str | None = None,
        api_key_env: str | None = None,
        timeout_s: float = 120.0,
        max_retries: int = 3,
        backoff_s: float = 1.0,
        max_concurrency: int = 4,
        max_side: int = 1024,
        max_new_tokens: int | None = None,
        both_orders: bool = False,
        set_orderings: int = 1,
        seed: int = 0,
        on_stage: StageCallback | None = None,
        set_per_dimension: bool = False,
        sleep: Callable[[float], None] = time.sleep,
        max_reply_bytes: int = MAX_REPLY_BYTES,
    ) -> None:
        super().__init__(
            prompts or PromptBook.for_preset(preset),
            both_orders=both_orders,
            set_orderings=set_orderings,
            seed=seed,
            on_stage=on_stage,
            set_per_dimension=set_per_dimension,
        )
        if max_concurrency < 1 or max_retries < 0 or timeout_s <= 0:
            raise ValueError("max_concurrency >= 1, max_retries >= 0 and timeout_s > 0 are required")
        self.client = ChatClient(
            base_url, model, api_key=api_key, api_key_env=api_key_env, timeout_s=timeout_s,
            max_retries=max_retries, backoff_s=backoff_s, sleep=sleep, max_reply_bytes=max_reply_bytes,
        )  # fmt: skip
        self.url = self.client.url
        self.model = model
        self.max_concurrency = max_concurrency
        self.max_side = max_side
        self.max_new_tokens = max_new_tokens
        self.judge_id = f"remote:{model}"
        self._calls = 0

    def _payload(self, request: ChatRequest) -> dict[str, Any]:
        content: list[dict[str, Any]] = [image_part(path, self.max_side) for path in request.images]
        content.append({"type": "text", "text": request.prompt.text})
        limit = request.prompt.max_new_tokens
        if self.max_new_tokens is not None:
            limit = min(limit, self.max_new_tokens)
        return {"messages": [{"role": "user", "content": content}], "max_tokens": limit, "temperature": 0.0}

    def _ask(self, request: ChatRequest, slot: int, cancel: CancelToken | None) -> Reply:
        try:
            payload = self._payload(request)
        except ImageUnreadable as error:
            return Reply(None, f"image unreadable: {error}")
        started = time.perf_counter()
        try:
            body = self.client.post_json(payload, slot, cancel)
        except RequestFailed as error:
            return Reply(None, str(error), time.perf_counter() - started)
        seconds = time.perf_counter() - started
        try:
            content = message_content(body)
        except KeyError:
            return Reply(None, "server reply has no choices[0].message.content", seconds)
        text = content_text(content)
        if text is None:
            kind = "null" if content is None else type(content).__name__
            return Reply(None, f"the server's reply content is not text (a JSON {kind})", seconds,
                         raw=self.client.clean(raw_json(content)))  # fmt: skip
        return Reply(self.client.clean(text), "", seconds)

    def _complete(
        self,
        requests: Sequence[ChatRequest],
        advance: Callable[[int], None],
        cancel: CancelToken | None,
    ) -> list[Reply]:
        replies: list[Reply | None] = [None] * len(requests)
        pending: dict[Future[Reply], int] = {}
        queue = list(enumerate(requests))
        with request_pool(self.max_concurrency) as (pool, stop):
            while queue or pending:
                while queue and len(pending) < self.max_concurrency:
                    if cancel is not None:
                        cancel.raise_if_cancelled()
                    index, request = queue.pop(0)
                    pending[pool.submit(self._ask, request, self._calls, stop)] = index
                    self._calls += 1
                for future in finished_or_cancelled(pending, cancel):
                    replies[pending.pop(future)] = future.result()
                    advance(1)
        if cancel is not None:
            cancel.raise_if_cancelled()
        return [r if r is not None else Reply(None, "not run") for r in replies]
