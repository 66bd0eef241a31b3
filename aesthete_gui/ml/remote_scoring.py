"""Five-dimension scores from an OpenAI-compatible server's token log-probabilities (vLLM, SGLang).

A dimension's score is defined as in the local single pass (ml/scoring_vlm.py): at the position
where the model's answer gives that dimension's digit, Σ k·p(k) over the digits 1..5 with p
renormalised over those five digits. The server returns the top log-probabilities of each token it
generates ("logprobs": true, "top_logprobs": k); the digits among them are that distribution (a
digit outside the top k counts as probability 0: at that position a judge puts nearly all its mass
on the digits).

Two ways to reach the position, measured against the local definition on tiny models
(docs/benchmarks/remote.md):
- "continue" (the default): per dimension, the rubric-first user turn (the rubric text, then the
  image) and the assistant's answer opening `<answer>{"technique": `, which the server continues by
  one token (`continue_final_message: true`, `add_generation_prompt: false`). This is exactly the
  local definition. An image's five requests go to one server, the first alone and the other four
  once it is answered, so that server's prefix cache already holds the rubric and the image.
- "generate": one request per image generates the answer, and the top log-probabilities at the
  first digit of each dimension's value are read. For servers that cannot continue a message; each
  dimension after the first is read after the model's own earlier values (and any reasoning), so
  these scores are not the local definition's.

A server that returns no log-probabilities raises ServerCannotScore at its first reply; a reply
without a readable digit distribution is counted as unreadable, never turned into a score.
"""

from __future__ import annotations

import math
import re
import time
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from aesthete_gui.engine.dimensions import DIMENSIONS
from aesthete_gui.engine.prompts import DEFAULT_PRESET, PromptBook
from aesthete_gui.engine.scorers import ScorerKind, scorer_id
from aesthete_gui.jobs import (
    CancelToken,
    Progress,
    ProgressCallback,
    finished_or_cancelled,
    request_pool,
)
from aesthete_gui.ml.chat_client import ChatClient, RequestFailed
from aesthete_gui.ml.images import ImageUnreadable
from aesthete_gui.ml.prompt_judge import JudgeUnavailable
from aesthete_gui.ml.remote import image_part

STYLES = ("continue", "generate")
DEFAULT_STYLE = "continue"
DEFAULT_CONCURRENCY = 8
DEFAULT_TOP_LOGPROBS = 20
"""The most vLLM returns unless started with a larger --max-logprobs (and OpenAI's own limit)."""
CONTINUATION_PROBE = 10
"""Continued replies without any score digit after which the server is taken not to continue."""


class ServerCannotScore(JudgeUnavailable):
    """The server answers, but not in a way that gives scores (no log-probabilities, no continuation)."""


MIN_DIGIT_SHARE = 1e-3
"""The least probability the digits 1..5 must hold together at the answer's position, as a share of
the likeliest token there: a reply whose model put almost none on them (a digit at 1e-35 beside
"the" at 0.9999) gives no score; it is not renormalised into a confident 5. A share, not a
probability: a small model spreads its probability thin over a large vocabulary."""


def digit_expectation(top_logprobs: Any) -> float | None:
    """Σ k·p(k) over the digits 1..5 among `top_logprobs` ([{"token", "logprob"}, …]), p renormalised
    over them; None when none is there, when together they hold under MIN_DIGIT_SHARE of the likeliest
    token's probability, or the entries are not of that shape."""
    if not isinstance(top_logprobs, list):
        return None
    seen: dict[str, float] = {}
    for entry in top_logprobs:
        if not isinstance(entry, dict):
            continue
        token, logprob = entry.get("token"), entry.get("logprob")
        if not isinstance(token, str) or token in seen or isinstance(logprob, bool):
            continue
        if not isinstance(logprob, int | float) or math.isnan(logprob) or logprob > 1e-6:
            continue
        seen[token] = float(logprob)
    mass = [0.0] * 5
    for token, logprob in seen.items():
        digit = _score_digit(token)
        if digit is not None:
            mass[digit - 1] += math.exp(logprob)
    total = sum(mass)
    likeliest = math.exp(max(seen.values())) if seen else 0.0
    if total <= 0.0 or total < MIN_DIGIT_SHARE * likeliest:
        return None
    return sum((k + 1) * p for k, p in enumerate(mass)) / total


def _score_digit(token: str) -> int | None:
    """1..5 for a token that is that digit (spaces around it, or punctuation after it, allowed; not
    "1e308", "1st" or "4.5")."""
    text = token.strip()
    rest = text[1:]
    if text and text[0] in "12345" and not any(c.isalnum() for c in rest) and not rest.startswith("."):
        return int(text[0])
    return None


def token_entries(body: Any) -> list[Any] | None:
    """choices[0].logprobs.content of a reply (a list, possibly malformed inside); None when the reply
    carries no log-probabilities at all; KeyError when it is not a chat completion."""
    try:
        choice = body["choices"][0]
    except (KeyError, IndexError, TypeError) as error:
        raise KeyError("choices[0]") from error
    if not isinstance(choice, dict):
        raise KeyError("choices[0]")
    logprobs = choice.get("logprobs")
    content = logprobs.get("content") if isinstance(logprobs, dict) else None
    return content if isinstance(content, list) else None


def _token_text(token: Any) -> str:
    """The text of one logprobs entry; "" when it has none."""
    text = token.get("token") if isinstance(token, dict) else None
    return text if isinstance(text, str) else ""


def answer_digit_tokens(tokens: Sequence[Any]) -> dict[str, int]:
    """Per dimension, the index of the generated token that starts its value's first digit (the
    answer's `"technique": 4` …), searched after the last `<answer>` when there is one."""
    texts = [_token_text(t) for t in tokens]
    starts, offset = [], 0
    for text in texts:
        starts.append(offset)
        offset += len(text)
    whole = "".join(texts)
    begin = max(whole.rfind("<answer>"), 0)
    found: dict[str, int] = {}
    for dimension in DIMENSIONS:
        match = re.compile(rf'"{dimension}"\s*:\s*"?').search(whole, begin)
        if match is None or match.end() >= len(whole) or whole[match.end()] not in "12345":
            continue
        position = match.end()
        index = max(i for i, start in enumerate(starts) if start <= position)
        leading = len(texts[index]) - len(texts[index].lstrip())
        if starts[index] + leading == position:  # the digit begins its token
            found[dimension] = index
    return found


@dataclass
class ServerScoringStats:
    """What one scoring pass asked and got: requests, replies without a readable digit, failures."""

    requests: int = 0
    unreadable_replies: int = 0
    failed_requests: int = 0
    reasons: list[str] = field(default_factory=list)

    def note(self, reason: str) -> None:
        """Keep the first few distinct failure reasons to report."""
        if reason not in self.reasons and len(self.reasons) < 3:
            self.reasons.append(reason)


@dataclass
class _Outcome:
    index: int
    parts: list[dict[str, Any]] | None
    values: dict[str, float | None]
    failed: str = ""
    image_unreadable: bool = False


class RemoteScorer:
    """A `Scorer` over OpenAI-compatible servers: five expected scores per image from log-probabilities."""

    def __init__(
        self,
        endpoints: str | Sequence[str],
        model: str,
        preset: str = DEFAULT_PRESET,
        *,
        prompts: PromptBook | None = None,
        api_key: str | None = None,
        api_key_env: str | None = None,
        concurrency: int = DEFAULT_CONCURRENCY,
        style: str = DEFAULT_STYLE,
        top_logprobs: int = DEFAULT_TOP_LOGPROBS,
        max_side: int = 1024,
        timeout_s: float = 120.0,
        max_retries: int = 3,
        backoff_s: float = 1.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        if style not in STYLES:
            raise ValueError(f"style must be one of {', '.join(STYLES)}, not {style!r}")
        if top_logprobs < 5:
            raise ValueError("top_logprobs must be at least 5 (the five digits)")
        self.client = ChatClient(
            endpoints, model, api_key=api_key, api_key_env=api_key_env, timeout_s=timeout_s,
            max_retries=max_retries, backoff_s=backoff_s, sleep=sleep,
        )  # fmt: skip
        self.model = model
        self.prompts = prompts or PromptBook.for_preset(preset)
        self.concurrency = concurrency
        self.style = style
        self.top_logprobs = top_logprobs
        self.max_side = max_side
        self.scorer_id = scorer_id(ScorerKind.SERVER, model)
        self.stats = ServerScoringStats()
        self._prompt, self._prefixes = self.prompts.single_pass()

    @property
    def version(self) -> str:
        """The prompt and preset versions behind the scores, and how the server was read."""
        return f"{self.prompts.version}+{self.style}"

    def _payload(self, parts: list[dict[str, Any]], dimension: str | None) -> dict[str, Any]:
        user = {"role": "user", "content": [{"type": "text", "text": self._prompt.text}, *parts]}
        sampling = {"temperature": 0.0, "logprobs": True, "top_logprobs": self.top_logprobs}
        if dimension is None:
            return {"messages": [user], "max_tokens": self._prompt.max_new_tokens, **sampling}
        opening = {"role": "assistant", "content": self._prefixes[dimension]}
        return {
            "messages": [user, opening], "max_tokens": 1, **sampling,
            "continue_final_message": True, "add_generation_prompt": False,
        }  # fmt: skip

    def _request(
        self, index: int, path: str, dimension: str | None, parts: list[dict[str, Any]] | None,
        cancel: CancelToken | None,
    ) -> _Outcome:
        if parts is None:
            try:
                parts = [image_part(path, self.max_side)]
            except ImageUnreadable:
                return _Outcome(index, None, {}, image_unreadable=True)
        try:
            body = self.client.post_json(self._payload(parts, dimension), index, cancel)
        except RequestFailed as error:
            return _Outcome(index, parts, {}, failed=str(error))
        try:
            tokens = token_entries(body)
        except KeyError:
            return _Outcome(index, parts, dict.fromkeys([dimension] if dimension else DIMENSIONS))
        if tokens is None:
            raise ServerCannotScore(
                f"the server at {self.client.urls[index % len(self.client.urls)]} returned no "
                "log-probabilities, so no scores can be read from it (it needs \"logprobs\": true "
                "support, as vLLM and SGLang have); nothing was stored"
            )
        if dimension is not None:
            first = tokens[0] if tokens and isinstance(tokens[0], dict) else {}
            return _Outcome(index, parts, {dimension: digit_expectation(first.get("top_logprobs"))})
        positions = answer_digit_tokens(tokens)
        return _Outcome(index, parts, {
            d: digit_expectation(tokens[positions[d]].get("top_logprobs")) if d in positions else None
            for d in DIMENSIONS
        })  # fmt: skip

    def score_paths(
        self,
        paths: Sequence[str],
        progress: ProgressCallback | None = None,
        cancel: CancelToken | None = None,
    ) -> list[dict[str, float]]:
        """Scores per path in order (only the dimensions read); an unreadable image gets {}."""
        self.stats = ServerScoringStats()
        results: list[dict[str, float]] = [{} for _ in paths]
        first = DIMENSIONS[0] if self.style == "continue" else None
        queue: deque[tuple[int, str | None, list[dict[str, Any]] | None]] = deque(
            (i, first, None) for i in range(len(paths))
        )
        left = [len(DIMENSIONS) if first else 1 for _ in paths]
        done_images = 0
        continued_without_digit = 0
        pending: dict[Future[_Outcome], str | None] = {}
        with request_pool(self.concurrency, "server-scores") as (pool, stop):
            while queue or pending:
                while queue and len(pending) < self.concurrency:
                    if cancel is not None:
                        cancel.raise_if_cancelled()
                    index, dimension, parts = queue.popleft()
                    future = pool.submit(self._request, index, paths[index], dimension, parts, stop)
                    pending[future] = dimension
                for future in finished_or_cancelled(pending, cancel):
                    dimension = pending.pop(future)
                    outcome = future.result()
                    index = outcome.index
                    if outcome.image_unreadable:
                        left[index] = 0
                    else:
                        self.stats.requests += 1
                        left[index] -= 1
                        if outcome.failed:
                            self.stats.failed_requests += 1
                            self.stats.note(outcome.failed)
                        for name, value in outcome.values.items():
                            if value is None:
                                self.stats.unreadable_replies += 1
                            else:
                                results[index][name] = value
                        if dimension is not None and not outcome.failed:
                            continued_without_digit = self._check_continuation(
                                continued_without_digit, outcome.values.get(dimension))
                        if dimension == first and first is not None:
                            # the rest of this image next, while its prefix is in the server's cache
                            queue.extendleft((index, d, outcome.parts) for d in reversed(DIMENSIONS[1:]))
                    if left[index] == 0:
                        done_images += 1
                        if progress is not None:
                            progress(Progress(done_images, len(paths), "server scores"))
        if cancel is not None:
            cancel.raise_if_cancelled()
        return [{d: r[d] for d in DIMENSIONS if d in r} for r in results]

    def _check_continuation(self, count: int, value: float | None) -> int:
        """-1 once a continued reply gave a digit; ServerCannotScore after CONTINUATION_PROBE without."""
        if count < 0:
            return count
        if value is not None:
            return -1
        count += 1
        if count >= CONTINUATION_PROBE:
            raise ServerCannotScore(
                f"none of the first {CONTINUATION_PROBE} replies had a score digit among its top "
                "log-probabilities where the answer's digit belongs: the server seems not to continue "
                "the assistant's message (continue_final_message); try --style generate. Nothing was stored"
            )
        return count
