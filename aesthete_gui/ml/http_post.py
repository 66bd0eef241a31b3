"""One HTTP POST with the safety rules of the remote judge: no redirects, one deadline, a size cap.

- Redirects are refused, never followed. A chat-completions POST has no legitimate reason to be
  redirected; following one would send the Authorization header (the API key) to whatever
  address the server names, and a 301/302 would turn the POST into a GET without its body anyway.
  Refusing is the rule that cannot leak: the user is told the address to use instead.
- `timeout_s` is the whole call's deadline (connect, headers and body together), not a per-read
  socket timeout: a watchdog shuts the connection when it passes, so a server trickling one byte
  a second cannot hold a call longer than asked.
- A cancel (the job's CancelToken) ends the call at once, whatever it is waiting for (a name
  lookup, a connection, a TLS handshake, the reply): the request runs in a worker thread, and on a
  cancel its connection is shut and the call returns. The worker ends with it, or, when the cancel
  came while the connection was still being made (a name lookup, a TCP connect), once that step
  ends or at the deadline.
- The reply is read in chunks and refused past `max_bytes` (a declared Content-Length above it is
  refused before reading): a huge reply never sits in memory whole.
"""

from __future__ import annotations

import contextlib
import http.client
import socket
import ssl
import threading
import time
import urllib.error
import urllib.request
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from aesthete_gui.jobs import CancelToken

MAX_REPLY_BYTES = 8 * 1024 * 1024
"""Largest server reply read (a chat completion is a few kilobytes)."""

ERROR_DETAIL_BYTES = 4096
"""Bytes of an error reply kept to explain it."""

_CHUNK = 64 * 1024


class PostFailure(Exception):
    """The request got no usable reply; subclasses say why."""


class StatusError(PostFailure):
    """The server answered with an HTTP error status (detail: the start of its body)."""

    def __init__(self, code: int, detail: str, retry_after: float | None) -> None:
        super().__init__(f"HTTP {code} {detail}".strip())
        self.code = code
        self.detail = detail
        self.retry_after = retry_after


class Redirected(PostFailure):
    """The server answered with a redirect, which is never followed."""

    def __init__(self, code: int, location: str) -> None:
        super().__init__(
            f"the server answered HTTP {code}, a redirect to {location or '(no address)'}; "
            "redirects are not followed (the API key would go along): give that address instead"
        )
        self.code = code
        self.location = location


class DeadlineExceeded(PostFailure):
    """No complete reply within the call's overall deadline (connect, headers and body together)."""


class PostCancelled(PostFailure):
    """The job was cancelled while the request was on its way; the connection was shut."""


class ReplyTooLarge(PostFailure):
    """The reply is larger than the cap."""


class ConnectionFailure(PostFailure):
    """The connection could not be made or broke; `reason` is the underlying error."""

    def __init__(self, message: str, reason: BaseException | None) -> None:
        super().__init__(message)
        self.reason = reason


class _Watchdog:
    """Shuts the connection's socket down when the overall deadline passes, or on a cancel."""

    def __init__(self, seconds: float) -> None:
        self.deadline = time.monotonic() + seconds
        self.expired = False
        self.cancelled = False
        self._lock = threading.Lock()
        self._timers: list[threading.Timer] = []
        self._sockets: list[socket.socket] = []

    def remaining(self) -> float:
        return max(0.0, self.deadline - time.monotonic())

    def attach(self, sock: socket.socket) -> None:
        """Watch a connection's socket from the moment it is connected. A duplicate of it is kept: a
        shutdown acts on the connection whichever descriptor asks, and the TLS layer takes the
        original over (detaching it) while its handshake is still running."""
        shadow = sock.dup()
        timer = threading.Timer(self.remaining(), self._expire, (shadow,))
        timer.daemon = True
        with self._lock:
            self._timers.append(timer)
            self._sockets.append(shadow)
            cancelled = self.cancelled
        timer.start()
        if cancelled:  # cancelled while connecting: shut it as soon as it exists
            self._shut(shadow)

    def cancel(self) -> None:
        """Shut every connection of the call now (the caller has stopped waiting for it)."""
        with self._lock:
            self.cancelled = True
            sockets = list(self._sockets)
        for sock in sockets:
            self._shut(sock)

    @staticmethod
    def _shut(sock: socket.socket) -> None:
        with contextlib.suppress(OSError):  # already closed
            sock.shutdown(socket.SHUT_RDWR)

    def _expire(self, sock: socket.socket) -> None:
        self.expired = True
        with contextlib.suppress(OSError):  # already closed
            sock.shutdown(socket.SHUT_RDWR)

    def stop(self) -> None:
        with self._lock:
            for timer in self._timers:
                timer.cancel()
            for shadow in self._sockets:
                shadow.close()  # the duplicates only: the connection itself is closed by its owner


class _WatchedConnection(http.client.HTTPConnection):
    """A connection whose socket the watchdog (the `watchdog` keyword) shuts at the deadline."""

    def __init__(self, host: str, *, watchdog: _Watchdog | None = None, **kwargs: Any) -> None:
        super().__init__(host, **kwargs)
        self._watchdog = watchdog

    def connect(self) -> None:
        if self._watchdog is None:
            super().connect()
            return
        watchdog = self._watchdog

        def connected(*args: Any, **kwargs: Any) -> socket.socket:
            sock = socket.create_connection(*args, **kwargs)
            watchdog.attach(sock)  # before a TLS handshake: a cancel or the deadline ends that too
            return sock

        self._create_connection = connected
        super().connect()


class _WatchedHTTPSConnection(_WatchedConnection, http.client.HTTPSConnection):
    """The TLS connection with the same watchdog (its socket is the TLS one)."""


class _HTTPHandler(urllib.request.HTTPHandler):
    def __init__(self, watchdog: _Watchdog) -> None:
        super().__init__()
        self.watchdog = watchdog

    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(_WatchedConnection, req, watchdog=self.watchdog)


class _HTTPSHandler(urllib.request.HTTPSHandler):
    def __init__(self, watchdog: _Watchdog, context: ssl.SSLContext | None = None) -> None:
        super().__init__(context=context)
        self.watchdog = watchdog
        self.context = context

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(_WatchedHTTPSConnection, req, context=self.context, watchdog=self.watchdog)


class _RefuseRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req: Any, fp: Any, code: int, msg: str, headers: Any, newurl: str) -> None:
        raise Redirected(code, newurl)


def post(
    url: str,
    payload: bytes,
    headers: dict[str, str],
    timeout_s: float,
    max_bytes: int = MAX_REPLY_BYTES,
    cancel: CancelToken | None = None,
) -> bytes:
    """POST `payload` and return the reply body; a PostFailure subclass says why there is none
    (PostCancelled when `cancel` was set while the request was on its way)."""
    if not url.lower().startswith(("http://", "https://")):  # no file:, ftp: or data: handlers
        raise ConnectionFailure(f"not an http(s) URL: {url}", None)
    if cancel is None:
        return _post(url, payload, headers, timeout_s, max_bytes, _Watchdog(timeout_s))
    if cancel.cancelled:
        raise PostCancelled("cancelled")
    watchdog = _Watchdog(timeout_s)
    outcome: list[bytes | BaseException] = []
    finished = threading.Event()

    def run() -> None:
        try:
            outcome.append(_post(url, payload, headers, timeout_s, max_bytes, watchdog))
        except BaseException as error:  # handed to the caller's thread
            outcome.append(error)
        finally:
            finished.set()

    threading.Thread(target=run, name="aesthete-post", daemon=True).start()
    while not finished.wait(CANCEL_POLL_S):
        if cancel.cancelled:
            watchdog.cancel()  # the worker's connection is shut; it ends by the deadline at the latest
            raise PostCancelled("cancelled")
    if isinstance(outcome[0], BaseException):
        raise outcome[0]
    return outcome[0]


CANCEL_POLL_S = 0.02
"""How often a call with a cancel token looks at it while the request is on its way."""


def _post(url: str, payload: bytes, headers: dict[str, str], timeout_s: float, max_bytes: int, watchdog: _Watchdog) -> bytes:
    opener = urllib.request.build_opener(
        _HTTPHandler(watchdog), _HTTPSHandler(watchdog), _RefuseRedirects()
    )
    request = urllib.request.Request(url, data=payload, headers=headers, method="POST")
    try:
        with opener.open(request, timeout=timeout_s) as response:
            body = _read_capped(response, max_bytes, watchdog, timeout_s)
        if watchdog.cancelled:
            raise PostCancelled("cancelled")
        return body
    except urllib.error.HTTPError as error:
        if watchdog.cancelled:
            raise PostCancelled("cancelled") from error
        if 300 <= error.code < 400:
            raise Redirected(error.code, error.headers.get("Location", "") if error.headers else "") from error
        detail = _error_detail(error, watchdog)
        raise StatusError(error.code, detail, _retry_after(error)) from error
    except PostFailure:
        if watchdog.cancelled:
            raise PostCancelled("cancelled") from None
        raise
    except urllib.error.URLError as error:
        if watchdog.cancelled:
            raise PostCancelled("cancelled") from error
        if watchdog.expired or isinstance(error.reason, TimeoutError):
            raise DeadlineExceeded(f"timed out after {timeout_s:g} s") from error
        raise ConnectionFailure(str(error.reason), error.reason if isinstance(error.reason, BaseException) else None) from error
    except (TimeoutError, http.client.HTTPException, OSError) as error:
        if watchdog.cancelled:
            raise PostCancelled("cancelled") from error
        if watchdog.expired or isinstance(error, TimeoutError):
            raise DeadlineExceeded(f"timed out after {timeout_s:g} s") from error
        raise ConnectionFailure(f"connection dropped: {type(error).__name__} {error}", error) from error
    finally:
        watchdog.stop()


def _read_capped(response: Any, max_bytes: int, watchdog: _Watchdog, timeout_s: float) -> bytes:
    declared = response.headers.get("Content-Length")
    if declared is not None and declared.strip().isdigit() and int(declared) > max_bytes:
        raise ReplyTooLarge(f"the server's reply is {int(declared):,} bytes; the limit is {max_bytes:,}")
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = response.read(min(_CHUNK, max_bytes + 1 - size))
        if watchdog.expired:
            raise DeadlineExceeded(f"timed out after {timeout_s:g} s")
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
        if size > max_bytes:
            raise ReplyTooLarge(f"the server's reply is larger than the limit of {max_bytes:,} bytes")
    return b"".join(chunks)


def _error_detail(error: urllib.error.HTTPError, watchdog: _Watchdog) -> str:
    """The error message of an error reply's JSON body, else its first characters."""
    import json

    try:
        text = error.read(ERROR_DETAIL_BYTES).decode("utf-8", "replace")
    except (OSError, http.client.HTTPException):
        return ""
    if watchdog.expired:
        return ""
    try:
        body = json.loads(text)
        message = body.get("error", {}).get("message") if isinstance(body, dict) else None
        if isinstance(message, str):
            return message[:300]
    except (ValueError, AttributeError, RecursionError):
        pass
    return text.strip()[:300]


def _retry_after(error: urllib.error.HTTPError) -> float | None:
    value = error.headers.get("Retry-After") if error.headers else None
    try:
        seconds = float(value) if value is not None else None
    except ValueError:
        return None
    return seconds if seconds is not None and seconds == seconds and seconds >= 0 else None
