"""A scripted chat-completions server that answers with token log-probabilities, in both styles the
remote scorer reads: one continued token per dimension, or one generated answer per image.

Each (image, dimension) has a digit distribution derived from the image's data URL, so a test
knows the expected score Σ k·p(k) without a model. 10 % of the probability mass sits on tokens
that are not digits, so the client must renormalise over the five digits.
"""

from __future__ import annotations

import hashlib
import math
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from aesthete_gui.engine.dimensions import DIMENSIONS
from tests.ml.chat_server import Action

OTHER_TOKENS = (("The", 0.06), (" ", 0.04))


def digit_probabilities(image_url: str, dimension: str) -> np.ndarray:
    """The distribution over the digits 1..5 this server encodes for one image and dimension."""
    seed = int(hashlib.sha256(f"{image_url}|{dimension}".encode()).hexdigest()[:12], 16)
    logits = np.random.default_rng(seed).normal(0.0, 1.5, 5)
    weights = np.exp(logits - logits.max())
    return weights / weights.sum()


def expected_score(image_url: str, dimension: str) -> float:
    """Σ k·p(k) of the encoded distribution."""
    return float(np.dot(np.arange(1, 6), digit_probabilities(image_url, dimension)))


def top_logprobs(image_url: str, dimension: str, count: int) -> list[dict[str, Any]]:
    """The top `count` entries of the full next-token distribution (digits get 90 % of the mass)."""
    entries = [(str(k + 1), 0.9 * p) for k, p in enumerate(digit_probabilities(image_url, dimension))]
    entries += list(OTHER_TOKENS)
    entries.sort(key=lambda e: -e[1])
    return [{"token": t, "logprob": math.log(p), "bytes": list(t.encode())} for t, p in entries[:count]]


def request_image(body: dict[str, Any]) -> str:
    """The data URL of the request's image."""
    parts = body["messages"][0]["content"]
    return next(p["image_url"]["url"] for p in parts if p.get("type") == "image_url")


def continued_dimension(body: dict[str, Any]) -> str | None:
    """The dimension whose answer opening the request asks to continue, or None (a generation)."""
    if len(body["messages"]) < 2 or not body.get("continue_final_message"):
        return None
    match = re.search(r'"(\w+)": $', body["messages"][-1]["content"])
    return match.group(1) if match else None


def _choice(content: str, tokens: list[dict[str, Any]] | None) -> dict[str, Any]:
    choice: dict[str, Any] = {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
    choice["logprobs"] = None if tokens is None else {"content": tokens}
    return choice


def _token(text: str, top: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"token": text, "logprob": 0.0, "bytes": list(text.encode()), "top_logprobs": top or [{"token": text, "logprob": 0.0}]}


@dataclass
class LogprobServerScript:
    """The responder: `with ChatServer(script) as server`. Records what it saw, and how many calls
    were in flight at once (each call holds for `delay` seconds)."""

    delay: float = 0.0
    logprobs: bool = True
    continues: bool = True
    unreadable: Callable[[str, str], bool] = lambda url, dimension: False
    seen: list[tuple[str, str | None, float]] = field(default_factory=list)
    active: int = 0
    peak: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, body: dict[str, Any], call: int) -> Action:
        with self._lock:
            self.active += 1
            self.peak = max(self.peak, self.active)
        try:
            if self.delay:
                time.sleep(self.delay)
            return self._answer(body)
        finally:
            with self._lock:
                self.active -= 1

    def _answer(self, body: dict[str, Any]) -> Action:
        url = request_image(body)
        dimension = continued_dimension(body)
        with self._lock:
            self.seen.append((url, dimension, time.monotonic()))
        count = int(body.get("top_logprobs") or 0)
        if dimension is not None and self.continues:
            top = top_logprobs(url, dimension, count)
            if self.unreadable(url, dimension):
                top = [{"token": "The", "logprob": -0.1}]
            tokens = [_token(top[0]["token"], top)] if self.logprobs else None
            return Action(body={"choices": [_choice(top[0]["token"], tokens)]})
        if dimension is not None:  # a server that ignores continue_final_message starts a new answer
            tokens = [_token("<think>", [{"token": "<think>", "logprob": -0.01}, {"token": "The", "logprob": -5.0}])]
            return Action(body={"choices": [_choice("<think>", tokens)]})
        tokens = [_token("<think>"), _token("Sharp."), _token("</think>"), _token("<answer>"), _token("{")]
        for index, name in enumerate(DIMENSIONS):
            top = top_logprobs(url, name, count)
            if self.unreadable(url, name):
                top = [{"token": "The", "logprob": -0.1}, {"token": "x", "logprob": -3.0}]
            digit = next((e["token"] for e in top if e["token"] in "12345" and e["token"]), "3")
            tokens += [_token(f'"{name}"'), _token(":"), _token(" "), _token(digit, top), _token(".00")]
            if index < len(DIMENSIONS) - 1:
                tokens.append(_token(", "))
        tokens += [_token("}"), _token("</answer>")]
        text = "".join(t["token"] for t in tokens)
        return Action(body={"choices": [_choice(text, tokens if self.logprobs else None)]})
