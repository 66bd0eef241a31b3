"""One or more OpenAI-compatible chat-completions servers as the remote judge and the remote scorer use them.

Each request is posted with the rules of ml/http_post.py (no redirects, one deadline, a size cap)
and retried with exponential backoff on 429 and 5xx answers, timeouts and dropped connections.
A server that cannot be reached, rejects the credentials or does not know the model raises
`JudgeUnavailable` with a clear message; a request that still fails after its retries raises
`RequestFailed` with the reason. Several base URLs are used round robin (the caller picks the slot).
Whatever text a server sends back is cleared of credentials (the API key, an echoed
Authorization header) before it reaches a message, a log or a stored reply. The API key comes from
an argument, an environment variable or the system keyring, and is never written anywhere.
"""

from __future__ import annotations

import json
import os
import socket
import time
from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import urlsplit

from aesthete_gui.jobs import CancelToken
from aesthete_gui.ml.http_post import (
    MAX_REPLY_BYTES,
    ConnectionFailure,
    DeadlineExceeded,
    PostCancelled,
    Redirected,
    ReplyTooLarge,
    StatusError,
    post,
)
from aesthete_gui.ml.prompt_judge import JudgeUnavailable
from aesthete_gui.safe_text import redact

DEFAULT_API_KEY_ENV = "AESTHETE_API_KEY"
KEYRING_SERVICE = "aesthete"
RETRY_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
FATAL_STATUSES = frozenset({401, 403, 404})
MAX_RETRY_AFTER_S = 30.0
RAW_KEPT_CHARS = 4000
"""Characters of a reply's unusable content kept as its raw text."""


def resolve_api_key(api_key: str | None, api_key_env: str | None, base_url: str) -> str | None:
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


def split_endpoints(endpoints: str | Sequence[str]) -> list[str]:
    """Base URLs from one string (comma-separated) or several, in order, without blanks or repeats."""
    items = [endpoints] if isinstance(endpoints, str) else list(endpoints)
    urls = [part.strip() for item in items for part in str(item).split(",")]
    return list(dict.fromkeys(u for u in urls if u))


def check_endpoint(base_url: str) -> None:
    """JudgeUnavailable unless `base_url` is an http(s) URL with a host (and a valid port)."""
    example = "like http://localhost:8000/v1"
    try:
        parts = urlsplit(base_url)
        parts.port  # noqa: B018 - raises ValueError for a port out of range
    except ValueError as error:
        raise JudgeUnavailable(f"the endpoint {base_url!r} is not a valid URL ({error}); give one {example}") from error
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise JudgeUnavailable(f"the endpoint {base_url!r} must be an http:// or https:// URL with a host, {example}")


def message_content(body: Any) -> Any:
    """choices[0].message.content of a chat-completions body (any JSON type), or KeyError."""
    try:
        return body["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError) as error:
        raise KeyError("choices[0].message.content") from error


def content_text(content: Any) -> str | None:
    """The text of a message's content: a string, or a list of parts whose texts are all strings;
    None for anything else (a number, null, an object, a part whose "text" is not a string)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list) or not content:
        return None
    texts = []
    for part in content:
        if not isinstance(part, dict):
            return None
        if "text" in part:
            if not isinstance(part["text"], str):
                return None
            texts.append(part["text"])
    return "".join(texts) if texts else None


def reply_content(body: Any) -> str | None:
    """The assistant text of a chat-completions response body, or None when it has none."""
    try:
        return content_text(message_content(body))
    except KeyError:
        return None


def raw_json(value: Any) -> str:
    """`value` as compact JSON (capped), to keep what a server sent instead of text."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        text = repr(value)
    return text[:RAW_KEPT_CHARS]


class RequestFailed(Exception):
    """This request got no usable reply (after its retries); `raw` keeps unusable content, if any."""

    def __init__(self, message: str, raw: str = "") -> None:
        super().__init__(message)
        self.raw = raw


class _Retryable(Exception):
    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class ChatClient:
    """Posts chat-completions requests to one server or several (round robin by slot), with retries."""

    def __init__(
        self,
        base_urls: str | Sequence[str],
        model: str,
        *,
        api_key: str | None = None,
        api_key_env: str | None = None,
        timeout_s: float = 120.0,
        max_retries: int = 3,
        backoff_s: float = 1.0,
        sleep: Callable[[float], None] = time.sleep,
        max_reply_bytes: int = MAX_REPLY_BYTES,
    ) -> None:
        if max_retries < 0 or timeout_s <= 0:
            raise ValueError("max_retries >= 0 and timeout_s > 0 are required")
        bases = split_endpoints(base_urls)
        if not bases:
            raise JudgeUnavailable("no server URL given; give one like http://localhost:8000/v1")
        for base in bases:
            check_endpoint(base)
        self.urls = [completions_url(base) for base in bases]
        self.model = model
        self._keys = [resolve_api_key(api_key, api_key_env, base) for base in bases]
        self.timeout_s = timeout_s  # the whole request's deadline: connect, headers and body
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        self.max_reply_bytes = max_reply_bytes
        self._sleep = sleep
        # Until a server has answered once, a refused connection means it is not running: fail at
        # once instead of retrying. Afterwards it is treated as a transient restart.
        self._seen = [False] * len(bases)

    @property
    def url(self) -> str:
        """The first server's chat-completions URL."""
        return self.urls[0]

    def clean(self, text: str) -> str:
        """Server text without credentials (the keys sent, echoed Authorization headers)."""
        return redact(text, self._keys)

    def post_json(
        self, payload: dict[str, Any], slot: int = 0, cancel: CancelToken | None = None
    ) -> Any:
        """The decoded JSON reply to `payload` from server `slot` (modulo the count), retrying what
        may pass; RequestFailed when this request has no reply, JudgeUnavailable when none can come."""
        index = slot % len(self.urls)
        data = json.dumps({"model": self.model, **payload}).encode("utf-8")
        last = ""
        refused = True
        for attempt in range(self.max_retries + 1):
            if cancel is not None and cancel.cancelled:
                raise RequestFailed("cancelled")
            try:
                return self._post_once(index, data, cancel)
            except _Retryable as error:
                last = str(error)
                refused = refused and last.startswith("cannot reach")
                if attempt < self.max_retries:
                    delay = self.backoff_s * (2**attempt)
                    if error.retry_after is not None:
                        delay = max(delay, min(error.retry_after, MAX_RETRY_AFTER_S))
                    if cancel is not None and self._sleep is time.sleep:
                        if cancel.wait(delay):  # a Retry-After of minutes is no reason to ignore a cancel
                            raise RequestFailed("cancelled") from None
                    else:
                        self._sleep(delay)
        if refused:
            raise JudgeUnavailable(f"{last} (tried {self.max_retries + 1} times)")
        raise RequestFailed(f"{last} ({self.max_retries + 1} attempts)")

    def _post_once(self, index: int, data: bytes, cancel: CancelToken | None = None) -> Any:
        url = self.urls[index]
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._keys[index]:
            headers["Authorization"] = f"Bearer {self._keys[index]}"
        try:
            raw_body = post(url, data, headers, self.timeout_s, self.max_reply_bytes, cancel)
            self._seen[index] = True
        except PostCancelled as error:
            raise RequestFailed("cancelled") from error
        except Redirected as error:
            raise JudgeUnavailable(self.clean(f"{url}: {error}")) from error
        except StatusError as error:
            self._seen[index] = True
            detail = self.clean(error.detail)
            if error.code in FATAL_STATUSES:
                raise JudgeUnavailable(_fatal_message(error.code, url, self.model, detail)) from error
            if error.code in RETRY_STATUSES:
                raise _Retryable(f"HTTP {error.code} {detail}".strip(), error.retry_after) from error
            raise RequestFailed(f"HTTP {error.code} {detail}".strip()) from error
        except DeadlineExceeded as error:
            raise _Retryable(str(error)) from error
        except ReplyTooLarge as error:
            self._seen[index] = True
            raise RequestFailed(str(error)) from error
        except ConnectionFailure as error:
            reason = error.reason
            if isinstance(reason, ConnectionRefusedError | socket.gaierror):
                message = f"cannot reach {url}: {reason}"
                if not self._seen[index]:
                    raise JudgeUnavailable(f"{message}; is the server running?") from error
                raise _Retryable(message) from error
            raise _Retryable(self.clean(f"connection problem: {error}")) from error
        try:
            return json.loads(raw_body)
        except (ValueError, RecursionError) as error:
            raise RequestFailed("server reply is not JSON") from error


def _fatal_message(code: int, url: str, model: str, detail: str) -> str:
    what = {
        401: "the server rejected the API key (set it in the environment variable given by "
        f"--api-key-env, default {DEFAULT_API_KEY_ENV})",
        403: "the server refused access with this API key",
        404: f"the server has no endpoint {url} or no model {model!r}",
    }[code]
    return f"HTTP {code}: {what}. Server said: {detail or '(nothing)'}"
