"""The remote judge's HTTP rules against hostile servers on 127.0.0.x: no redirect, one deadline, a size cap."""

from __future__ import annotations

import json
import re
import time
from http.server import BaseHTTPRequestHandler

import pytest

from aesthete_gui.jobs import CancelToken
from aesthete_gui.ml.prompt_judge import JudgeUnavailable, is_failure
from aesthete_gui.ml.remote import RemoteJudge
from tests.ml.chat_server import protocol_reply
from tests.ml.hostile_server import HostileServer

KEY = "sk-secret-do-not-forward"
REPLY = json.dumps({"choices": [{"message": {"content": protocol_reply("Grade this")}}]}).encode()


def _judge(url: str, **options: object) -> RemoteJudge:
    settings: dict = {"api_key": KEY, "timeout_s": 1.0, "max_retries": 0, "backoff_s": 0.0}
    settings.update(options)
    return RemoteJudge(url, "m", **settings)


def _answer(handler: BaseHTTPRequestHandler) -> None:
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(REPLY)))
    handler.end_headers()
    handler.wfile.write(REPLY)


@pytest.mark.parametrize("code", [301, 302, 303, 307, 308])
@pytest.mark.parametrize("target_host", ["127.0.0.2", "localhost", "127.0.0.1"])
def test_a_redirect_is_refused_and_the_key_goes_nowhere_else(photo_paths: list[str], code: int, target_host: str) -> None:
    listen = "127.0.0.2" if target_host == "127.0.0.2" else "127.0.0.1"
    with HostileServer(_answer, listen) as target:
        location = target.url(target_host) + "/chat/completions"

        def redirect(handler: BaseHTTPRequestHandler) -> None:
            handler.send_response(code)
            handler.send_header("Location", location)
            handler.send_header("Content-Length", "0")
            handler.end_headers()

        with HostileServer(redirect) as origin, pytest.raises(JudgeUnavailable) as caught:
            _judge(origin.url()).score_items(photo_paths[:1])
    assert target.requests == []  # not followed, so no other address ever saw the key
    assert origin.requests[0]["Authorization"] == f"Bearer {KEY}"
    message = str(caught.value)
    assert f"HTTP {code}" in message and location in message and "not followed" in message
    assert KEY not in message


def _trickle_body(handler: BaseHTTPRequestHandler) -> None:
    handler.send_response(200)
    handler.send_header("Content-Length", str(len(REPLY)))
    handler.end_headers()
    handler.wfile.flush()
    for byte in REPLY:
        handler.wfile.write(bytes([byte]))
        handler.wfile.flush()
        time.sleep(0.1)


def _trickle_headers(handler: BaseHTTPRequestHandler) -> None:
    for byte in b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Slow: " + b"x" * 200:
        handler.wfile.write(bytes([byte]))
        handler.wfile.flush()
        time.sleep(0.1)


@pytest.mark.parametrize("behaviour", [_trickle_body, _trickle_headers], ids=["body", "headers"])
def test_a_trickling_server_cannot_hold_a_call_past_its_deadline(photo_paths: list[str], behaviour) -> None:
    with HostileServer(behaviour) as server:
        started = time.monotonic()
        [record] = _judge(server.url(), timeout_s=1.0).score_items(photo_paths[:1])
        elapsed = time.monotonic() - started
    assert elapsed < 2.0  # each byte arrives well within any socket timeout; the deadline still holds
    assert is_failure(record) and "timed out after 1 s" in record.rationale


def _flood(declare: bool, status: int = 200):
    def behaviour(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(status)
        if declare:
            handler.send_header("Content-Length", str(400_000_000))
        else:
            handler.send_header("Connection", "close")
        handler.end_headers()
        block = b"x" * 65536
        for _ in range(160):  # 10 MiB at most; the client stops long before
            handler.wfile.write(block)

    return behaviour


def test_a_declared_huge_reply_is_refused_before_reading(photo_paths: list[str]) -> None:
    with HostileServer(_flood(declare=True)) as server:
        [record] = _judge(server.url(), timeout_s=5.0).score_items(photo_paths[:1])
    assert is_failure(record) and "400,000,000 bytes; the limit is 8,388,608" in record.rationale


def test_an_undeclared_huge_reply_is_cut_at_the_cap(photo_paths: list[str]) -> None:
    with HostileServer(_flood(declare=False)) as server:
        [record] = _judge(server.url(), timeout_s=5.0, max_reply_bytes=256 * 1024).score_items(photo_paths[:1])
    assert is_failure(record) and "larger than the limit of 262,144 bytes" in record.rationale


def test_a_huge_error_reply_is_read_only_for_its_first_bytes(photo_paths: list[str]) -> None:
    with HostileServer(_flood(declare=True, status=400)) as server:
        started = time.monotonic()
        [record] = _judge(server.url(), timeout_s=5.0).score_items(photo_paths[:1])
    assert time.monotonic() - started < 2.0
    assert is_failure(record) and record.rationale.startswith("no answer from the judge: HTTP 400 xxxx")
    assert len(record.rationale) < 400


def test_a_well_behaved_reply_still_parses(photo_paths: list[str]) -> None:
    with HostileServer(_answer) as server:
        [record] = _judge(server.url()).score_items(photo_paths[:1], cancel=CancelToken())
    assert record.parsed and record.scores["technique"] == 4.5


@pytest.mark.parametrize(
    ("endpoint", "expected"),
    [
        ("localhost:8000/v1", "must be an http:// or https:// URL"),
        ("file:///etc", "must be an http:// or https:// URL"),
        ("ftp://example.invalid/v1", "must be an http:// or https:// URL"),
        ("http://", "with a host"),
        ("http://[::1", "Invalid IPv6 URL"),
        ("http://127.0.0.1:99999/v1", "Port out of range"),
    ],
)
def test_an_endpoint_that_is_no_http_url_is_refused_at_once(endpoint: str, expected: str) -> None:
    from aesthete_gui.services.distill import DistillError, make_judge

    with pytest.raises(JudgeUnavailable, match=re.escape(expected)):
        RemoteJudge(endpoint, "m")
    with pytest.raises(DistillError, match=re.escape(expected)):
        make_judge(None, endpoint, "m", "photography")


def _raw_reply(data: bytes):
    def behaviour(handler: BaseHTTPRequestHandler) -> None:
        handler.wfile.write(data)

    return behaviour


def _body(body: bytes) -> bytes:
    return b"HTTP/1.1 200 OK\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"SPEAK FRIEND AND ENTER\r\n\r\n", "connection problem"),
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n", "connection problem"),
        (b"HTTP/1.1 200 OK\r\n" + b"X-A: b\r\n" * 200 + b"\r\n", "connection problem"),
        (_body(b"\xff\xfe not utf-8"), "server reply is not JSON"),
        (_body(b"[" * 100_000 + b"]" * 100_000), "server reply is not JSON"),
        (_body(b'{"choices": [{"message": {}}]}'), "no choices[0].message.content"),
        (b"HTTP/1.1 429 Slow down\r\nRetry-After: nan\r\nContent-Length: 0\r\n\r\n", "HTTP 429"),
    ],
    ids=["status line", "bad chunk", "200 headers", "not utf-8", "deep json", "no content", "retry-after nan"],
)
def test_malformed_replies_are_recorded_as_no_answer(photo_paths: list[str], data: bytes, expected: str) -> None:
    with HostileServer(_raw_reply(data)) as server:
        [record] = _judge(server.url(), max_retries=1).score_items(photo_paths[:1])
    assert is_failure(record) and expected in record.rationale


def _answer_after_a_minute(handler: BaseHTTPRequestHandler) -> None:
    time.sleep(60)  # a server busy with a long queue: nothing comes back for a minute
    _answer(handler)


def test_cancel_shuts_a_request_in_flight_at_once_not_at_its_deadline() -> None:
    """A cancel used to wait for the request on its way: the job stopped only when the server answered
    or the deadline (two minutes by default) passed. The connection is now shut at once."""
    import threading

    from aesthete_gui.ml.chat_client import ChatClient, RequestFailed
    from aesthete_gui.ml.http_post import PostCancelled, post

    with HostileServer(_answer_after_a_minute) as server:
        cancel = CancelToken()
        threading.Timer(0.3, cancel.cancel).start()
        started = time.monotonic()
        with pytest.raises(PostCancelled):
            post(server.url() + "/chat/completions", b"{}", {}, timeout_s=30.0, cancel=cancel)
        assert time.monotonic() - started < 1.5
        client = ChatClient(server.url(), "m", timeout_s=30.0, max_retries=3, backoff_s=0.0)
        cancel = CancelToken()
        threading.Timer(0.3, cancel.cancel).start()
        started = time.monotonic()
        with pytest.raises(RequestFailed, match="cancelled"):
            client.post_json({"messages": []}, 0, cancel)
        assert time.monotonic() - started < 1.5  # no retry after a cancel either
    assert len(server.requests) == 2


def test_a_request_not_cancelled_still_gets_its_reply_with_a_cancel_token_watching() -> None:
    from aesthete_gui.ml.http_post import post

    with HostileServer(_answer) as server:
        assert post(server.url() + "/chat/completions", b"{}", {}, timeout_s=5.0, cancel=CancelToken()) == REPLY


def test_cancel_ends_a_call_still_in_its_tls_handshake() -> None:
    """An attack: a server that accepts the connection and never starts TLS held a cancelled call
    until its deadline (the watchdog was attached only once the connection was made)."""
    import socket
    import threading

    from aesthete_gui.ml.http_post import PostCancelled, post

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    held: list[socket.socket] = []
    threading.Thread(target=lambda: held.append(listener.accept()[0]), daemon=True).start()
    try:
        cancel = CancelToken()
        threading.Timer(0.3, cancel.cancel).start()
        started = time.monotonic()
        with pytest.raises(PostCancelled):
            post(f"https://127.0.0.1:{listener.getsockname()[1]}/v1/chat/completions", b"{}", {}, timeout_s=30.0, cancel=cancel)
        assert time.monotonic() - started < 1.5
        # the request's own thread ends with it, not at the 30 s deadline (an attack left 300 of them
        # waiting for the deadline after 300 cancels)
        workers = [t for t in threading.enumerate() if t.name == "aesthete-post"]
        for worker in workers:
            worker.join(timeout=10.0)
        assert not any(w.is_alive() for w in workers)
    finally:
        for sock in held:
            sock.close()
        listener.close()
