"""A judge over any OpenAI-compatible chat-completions server (vLLM, SGLang, Ollama, LM Studio, …).

Images travel as base64 JPEG data URLs; requests run with bounded concurrency, an overall deadline
per request, a cap on the reply's size, no redirects followed (ml/http_post.py says why), and
retries with exponential backoff on 429 and 5xx answers, timeouts and dropped connections. A
server that cannot be reached, rejects the credentials or does not know the model raises
`JudgeUnavailable` with a clear message; a request that still fails after its retries is recorded
as unparsed with the reason. The API key comes from an argument, an environment variable or the
system keyring, and is never written anywhere by this module.
"""

from __future__ import annotations

import base64
import json
import os
import socket
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Any

from aesthete_gui.engine.prompts import DEFAULT_PRESET, PromptBook
from aesthete_gui.jobs import CancelToken
from aesthete_gui.ml.http_post import (
    MAX_REPLY_BYTES,
    ConnectionFailure,
    DeadlineExceeded,
    Redirected,
    ReplyTooLarge,
    StatusError,
    post,
)
from aesthete_gui.ml.images import ImageUnreadable, jpeg_bytes
from aesthete_gui.ml.prompt_judge import (
    ChatRequest,
    JudgeUnavailable,
    PromptJudge,
    Reply,
    StageCallback,
)

DEFAULT_API_KEY_ENV = "AESTHETE_API_KEY"
KEYRING_SERVICE = "aesthete"
RETRY_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
FATAL_STATUSES = frozenset({401, 403, 404})
MAX_RETRY_AFTER_S = 30.0


def resolve_api_key(
    api_key: str | None, api_key_env: str | None, base_url: str
) -> str | None:
    """The key to send: explicit, else $api_key_env, else the keyring entry for `base_url`, else None."""
    if api_key:
        return api_key
    env_name = api_key_env or DEFAULT_API_KEY_ENV
    if os.environ.get(env_name):
        return os.environ[env_name]
    try:
        import keyring  # optional: only when the user installed it
    except ImportError:
        return None
    try:
        return keyring.get_password(KEYRING_SERVICE, base_url)
    except Exception:
        return None


def completions_url(base_url: str) -> str:
    """The chat-completions endpoint for a base URL like http://host:8000/v1."""
    url = base_url.rstrip("/")
    if url.endswith("/chat/completions"):
        return url
    return url + "/chat/completions"


def check_endpoint(base_url: str) -> None:
    """JudgeUnavailable unless `base_url` is an http(s) URL with a host (and a valid port)."""
    from urllib.parse import urlsplit

    example = "like http://localhost:8000/v1"
    try:
        parts = urlsplit(base_url)
        parts.port  # noqa: B018 - raises ValueError for a port out of range
    except ValueError as error:
        raise JudgeUnavailable(f"the endpoint {base_url!r} is not a valid URL ({error}); give one {example}") from error
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise JudgeUnavailable(f"the endpoint {base_url!r} must be an http:// or https:// URL with a host, {example}")


def reply_content(body: Any) -> str | None:
    """The assistant text of a chat-completions response body, or None when it has none."""
    try:
        content = body["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        return None
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text", "") for p in content if isinstance(p, dict)]
        return "".join(parts)
    return None


class _RetryableFailure(Exception):
    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class _RequestFailure(Exception):
    """A failure of this request only (not retried further)."""


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
        check_endpoint(base_url)
        self.url = completions_url(base_url)
        self.model = model
        self._api_key = resolve_api_key(api_key, api_key_env, base_url)
        self.timeout_s = timeout_s  # the whole request's deadline: connect, headers and body
        self.max_reply_bytes = max_reply_bytes
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        self.max_concurrency = max_concurrency
        self.max_side = max_side
        self.max_new_tokens = max_new_tokens
        self._sleep = sleep
        # Until the server has answered once, a refused connection means it is not running:
        # fail at once instead of retrying. Afterwards it is treated as a transient restart.
        self._server_seen = False
        self.judge_id = f"remote:{model}"

    def _payload(self, request: ChatRequest) -> bytes:
        content: list[dict[str, Any]] = []
        for path in request.images:
            data = base64.b64encode(jpeg_bytes(path, self.max_side)).decode("ascii")
            content.append({"type": "image_url", "image_url": {"url": f"data:image/jpeg;base64,{data}"}})
        content.append({"type": "text", "text": request.prompt.text})
        limit = request.prompt.max_new_tokens
        if self.max_new_tokens is not None:
            limit = min(limit, self.max_new_tokens)
        body = {
            "model": self.model,
            "messages": [{"role": "user", "content": content}],
            "max_tokens": limit,
            "temperature": 0.0,
        }
        return json.dumps(body).encode("utf-8")

    def _post_once(self, payload: bytes) -> str:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        try:
            raw_body = post(self.url, payload, headers, self.timeout_s, self.max_reply_bytes)
            self._server_seen = True
        except Redirected as error:
            raise JudgeUnavailable(f"{self.url}: {error}") from error
        except StatusError as error:
            self._server_seen = True
            if error.code in FATAL_STATUSES:
                raise JudgeUnavailable(_fatal_message(error.code, self.url, self.model, error.detail)) from error
            if error.code in RETRY_STATUSES:
                raise _RetryableFailure(str(error), error.retry_after) from error
            raise _RequestFailure(str(error)) from error
        except DeadlineExceeded as error:
            raise _RetryableFailure(str(error)) from error
        except ReplyTooLarge as error:
            self._server_seen = True
            raise _RequestFailure(str(error)) from error
        except ConnectionFailure as error:
            reason = error.reason
            if isinstance(reason, ConnectionRefusedError | socket.gaierror):
                message = f"cannot reach {self.url}: {reason}"
                if not self._server_seen:
                    raise JudgeUnavailable(f"{message}; is the server running?") from error
                raise _RetryableFailure(message) from error
            raise _RetryableFailure(f"connection problem: {error}") from error
        try:
            body = json.loads(raw_body)
        except (ValueError, RecursionError) as error:
            raise _RequestFailure("server reply is not JSON") from error
        text = reply_content(body)
        if text is None:
            raise _RequestFailure("server reply has no choices[0].message.content")
        return text

    def _ask(self, request: ChatRequest, cancel: CancelToken | None) -> Reply:
        try:
            payload = self._payload(request)
        except ImageUnreadable as error:
            return Reply(None, f"image unreadable: {error}")
        started = time.perf_counter()
        last = ""
        refused = True
        for attempt in range(self.max_retries + 1):
            if cancel is not None and cancel.cancelled:
                return Reply(None, "cancelled")
            try:
                text = self._post_once(payload)
                return Reply(text, "", time.perf_counter() - started)
            except _RequestFailure as error:
                return Reply(None, str(error), time.perf_counter() - started)
            except _RetryableFailure as error:
                last = str(error)
                refused = refused and last.startswith("cannot reach")
                if attempt < self.max_retries:
                    delay = self.backoff_s * (2**attempt)
                    if error.retry_after is not None:
                        delay = max(delay, min(error.retry_after, MAX_RETRY_AFTER_S))
                    self._sleep(delay)
        if refused:
            raise JudgeUnavailable(f"{last} (tried {self.max_retries + 1} times)")
        attempts = self.max_retries + 1
        return Reply(None, f"{last} ({attempts} attempts)", time.perf_counter() - started)

    def _complete(
        self,
        requests: Sequence[ChatRequest],
        advance: Callable[[int], None],
        cancel: CancelToken | None,
    ) -> list[Reply]:
        replies: list[Reply | None] = [None] * len(requests)
        pending: dict[Future[Reply], int] = {}
        queue = list(enumerate(requests))
        with ThreadPoolExecutor(max_workers=self.max_concurrency) as pool:
            try:
                while queue or pending:
                    while queue and len(pending) < self.max_concurrency:
                        if cancel is not None:
                            cancel.raise_if_cancelled()
                        index, request = queue.pop(0)
                        pending[pool.submit(self._ask, request, cancel)] = index
                    done, _ = wait(pending, return_when=FIRST_COMPLETED)
                    for future in done:
                        replies[pending.pop(future)] = future.result()
                        advance(1)
            finally:
                for future in pending:
                    future.cancel()
        if cancel is not None:
            cancel.raise_if_cancelled()
        return [r if r is not None else Reply(None, "not run") for r in replies]


def _fatal_message(code: int, url: str, model: str, detail: str) -> str:
    what = {
        401: "the server rejected the API key (set it in the environment variable given by "
        f"--api-key-env, default {DEFAULT_API_KEY_ENV})",
        403: "the server refused access with this API key",
        404: f"the server has no endpoint {url} or no model {model!r}",
    }[code]
    return f"HTTP {code}: {what}. Server said: {detail or '(nothing)'}"
