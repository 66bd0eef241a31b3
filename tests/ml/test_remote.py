"""The remote judge against a chat-completions server on 127.0.0.1: every failure mode gives a clear outcome."""

from __future__ import annotations

import base64
import io
import socket

import pytest
from PIL import Image

from aesthete_gui.jobs import Cancelled, CancelToken
from aesthete_gui.ml.prompt_judge import JudgeUnavailable, is_failure
from aesthete_gui.ml.remote import RemoteJudge, completions_url, reply_content, resolve_api_key
from tests.ml.chat_server import Action, ChatServer, prompt_text, protocol_reply


def _judge(server: ChatServer, **options: object) -> RemoteJudge:
    options.setdefault("backoff_s", 0.01)
    return RemoteJudge(server.base_url, "scripted-vl", **options)


def test_request_carries_images_as_data_urls_model_and_key(
    photo_paths: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MY_KEY_VAR", "sk-test-123")
    with ChatServer() as server:
        _judge(server, api_key_env="MY_KEY_VAR", max_new_tokens=50).judge_pairs(
            [(photo_paths[0], photo_paths[1])]
        )
    [body] = server.requests
    assert body["model"] == "scripted-vl"
    assert body["temperature"] == 0.0
    assert body["max_tokens"] == 50
    parts = body["messages"][0]["content"]
    urls = [p["image_url"]["url"] for p in parts if p["type"] == "image_url"]
    assert len(urls) == 2
    assert all(u.startswith("data:image/jpeg;base64,") for u in urls)
    decoded = Image.open(io.BytesIO(base64.b64decode(urls[0].split(",", 1)[1])))
    assert decoded.size == Image.open(photo_paths[0]).size
    assert "A is the first image" in parts[-1]["text"]
    assert server.headers[0]["Authorization"] == "Bearer sk-test-123"


def test_no_key_sends_no_authorization(photo_paths: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AESTHETE_API_KEY", raising=False)
    with ChatServer() as server:
        _judge(server).score_items(photo_paths[:1])
    assert "Authorization" not in server.headers[0]


def _scripted(content: str):
    return lambda body, call: Action(content)


def test_malformed_json_is_unparsed_with_raw_kept(photo_paths: list[str]) -> None:
    raw = '<answer>{"technique": "A", "coloration": </answer> oops'
    with ChatServer(_scripted(raw)) as server:
        [record] = _judge(server).judge_pairs([(photo_paths[0], photo_paths[1])])
    assert not record.parsed
    assert record.raw == raw
    assert not is_failure(record)
    assert set(record.outcome.values()) == {None}


def test_missing_dimensions_are_none(photo_paths: list[str]) -> None:
    with ChatServer(_scripted('<answer>{"overall": "B", "mood": "A"}</answer>')) as server:
        [record] = _judge(server).judge_pairs([(photo_paths[0], photo_paths[1])])
    assert record.parsed
    assert record.outcome == {
        "technique": None, "coloration": None, "composition": None, "mood": "A", "overall": "B",
    }  # fmt: skip
    assert "technique: missing" in record.rationale


def test_out_of_range_scores_are_dropped_not_clamped(photo_paths: list[str]) -> None:
    reply = '<answer>{"technique": 9, "coloration": -1, "composition": 4, "mood": 3, "overall": 6}</answer>'
    with ChatServer(_scripted(reply)) as server:
        [record] = _judge(server).score_items(photo_paths[:1])
    assert record.scores == {
        "technique": None, "coloration": None, "composition": 4.0, "mood": 3.0, "overall": None,
    }  # fmt: skip
    assert "technique: 9 outside 1..5" in record.rationale


def test_refusal_is_unparsed(photo_paths: list[str]) -> None:
    refusal = "I'm sorry, I can't help with judging these images."
    with ChatServer(_scripted(refusal)) as server:
        [record] = _judge(server).select_best_worst([photo_paths[:3]])
    assert not record.parsed
    assert record.raw == refusal
    assert record.best is None


def test_429_then_success_retries_with_backoff_and_honours_retry_after(photo_paths: list[str]) -> None:
    def responder(body, call):
        if call < 2:
            return Action(status=429, body={"error": {"message": "slow down"}}, headers={"Retry-After": "0.05"})
        return Action(protocol_reply(prompt_text(body)))

    delays: list[float] = []
    with ChatServer(responder) as server:
        [record] = _judge(server, sleep=delays.append).score_items(photo_paths[:1])
    assert record.parsed
    assert len(server.requests) == 3
    assert delays == [pytest.approx(0.05), pytest.approx(0.05)]


def test_backoff_doubles(photo_paths: list[str]) -> None:
    delays: list[float] = []
    with ChatServer(lambda body, call: Action(status=503, body={"error": {"message": "busy"}})) as server:
        [record] = _judge(server, backoff_s=0.5, max_retries=3, sleep=delays.append).score_items(
            photo_paths[:1]
        )
    assert delays == [0.5, 1.0, 2.0]
    assert is_failure(record)
    assert "HTTP 503 busy (4 attempts)" in record.rationale


def test_persistent_500_is_recorded_as_no_answer(photo_paths: list[str]) -> None:
    with ChatServer(lambda body, call: Action(status=500, body={"error": {"message": "boom"}})) as server:
        records = _judge(server, max_retries=1).judge_pairs(
            [(photo_paths[0], photo_paths[1]), (photo_paths[2], photo_paths[3])]
        )
    assert len(server.requests) == 4
    for record in records:
        assert not record.parsed
        assert is_failure(record)
        assert record.raw == ""
        assert "HTTP 500 boom" in record.rationale


def test_slow_reply_past_the_timeout(photo_paths: list[str]) -> None:
    with ChatServer(lambda body, call: Action("late", delay=1.0)) as server:
        [record] = _judge(server, timeout_s=0.2, max_retries=1).score_items(photo_paths[:1])
    assert is_failure(record)
    assert "timed out after 0.2 s (2 attempts)" in record.rationale


def test_dropped_connection_then_success(photo_paths: list[str]) -> None:
    def responder(body, call):
        if call == 0:
            return Action(drop=True)
        return Action(protocol_reply(prompt_text(body)))

    with ChatServer(responder) as server:
        [record] = _judge(server).judge_pairs([(photo_paths[0], photo_paths[1])])
    assert record.parsed
    assert len(server.requests) == 2


def test_always_dropped_connection_is_recorded(photo_paths: list[str]) -> None:
    with ChatServer(lambda body, call: Action(drop=True)) as server:
        [record] = _judge(server, max_retries=1).judge_pairs([(photo_paths[0], photo_paths[1])])
    assert is_failure(record)
    assert "connection" in record.rationale


@pytest.mark.parametrize(
    ("status", "expected"),
    [(401, "rejected the API key"), (403, "refused access"), (404, "no model 'scripted-vl'")],
)
def test_auth_and_not_found_errors_raise_clearly(photo_paths: list[str], status: int, expected: str) -> None:
    server = ChatServer(lambda body, call: Action(status=status, body={"error": {"message": "nope"}}))
    with server, pytest.raises(JudgeUnavailable, match=expected):
        _judge(server).score_items(photo_paths[:1])
    assert len(server.requests) == 1


def test_other_4xx_is_recorded_without_retry(photo_paths: list[str]) -> None:
    with ChatServer(lambda body, call: Action(status=400, body={"error": {"message": "image too large"}})) as server:
        [record] = _judge(server).score_items(photo_paths[:1])
    assert len(server.requests) == 1
    assert "HTTP 400 image too large" in record.rationale


def test_non_chat_reply_is_recorded(photo_paths: list[str]) -> None:
    with ChatServer(lambda body, call: Action(body=b"<html>proxy error</html>")) as server:
        [record] = _judge(server).score_items(photo_paths[:1])
    assert "not JSON" in record.rationale
    with ChatServer(lambda body, call: Action(body={"choices": []})) as server:
        [record] = _judge(server).score_items(photo_paths[:1])
    assert "no choices" in record.rationale


def test_unreachable_server_raises_judge_unavailable_at_once(photo_paths: list[str]) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    delays: list[float] = []
    judge = RemoteJudge(f"http://127.0.0.1:{port}/v1", "m", max_retries=3, sleep=delays.append)
    with pytest.raises(JudgeUnavailable, match=r"cannot reach .* is the server running"):
        judge.score_items(photo_paths[:1])
    assert delays == []


def test_server_gone_after_answering_is_retried_then_unavailable(photo_paths: list[str]) -> None:
    delays: list[float] = []
    with ChatServer() as server:
        judge = _judge(server, max_retries=2, sleep=delays.append)
        [first] = judge.score_items(photo_paths[:1])
    assert first.parsed
    with pytest.raises(JudgeUnavailable, match="tried 3 times"):
        judge.score_items(photo_paths[:1])
    assert delays == [0.01, 0.02]


def test_bounded_concurrency_keeps_order(photo_paths: list[str]) -> None:
    import threading

    active = 0
    peak = 0
    lock = threading.Lock()

    def responder(body, call):
        nonlocal active, peak
        with lock:
            active += 1
            peak = max(peak, active)
        import time

        time.sleep(0.05)
        with lock:
            active -= 1
        return Action(protocol_reply(prompt_text(body)))

    with ChatServer(responder) as server:
        records = _judge(server, max_concurrency=2).score_items(photo_paths)
    assert [r.item for r in records] == photo_paths
    assert all(r.parsed for r in records)
    assert peak == 2


def test_cancel_stops_before_more_requests(photo_paths: list[str]) -> None:
    token = CancelToken()

    def responder(body, call):
        token.cancel()
        return Action(protocol_reply(prompt_text(body)))

    with ChatServer(responder) as server, pytest.raises(Cancelled):
        _judge(server, max_concurrency=1).score_items(photo_paths, cancel=token)
    assert len(server.requests) == 1


def test_helpers(monkeypatch: pytest.MonkeyPatch) -> None:
    assert completions_url("http://h:1/v1/") == "http://h:1/v1/chat/completions"
    assert completions_url("http://h/v1/chat/completions") == "http://h/v1/chat/completions"
    assert reply_content({"choices": [{"message": {"content": [{"type": "text", "text": "hi"}]}}]}) == "hi"
    assert reply_content({"nope": 1}) is None
    monkeypatch.setenv("AESTHETE_API_KEY", "from-env")
    assert resolve_api_key(None, None, "http://h") == "from-env"
    assert resolve_api_key("explicit", None, "http://h") == "explicit"


def test_api_key_from_the_keyring_when_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys
    import types

    stored = {("aesthete", "http://gpu-box:8000/v1"): "from-keyring"}
    fake = types.ModuleType("keyring")
    fake.get_password = lambda service, name: stored.get((service, name))  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "keyring", fake)
    monkeypatch.delenv("AESTHETE_API_KEY", raising=False)
    assert resolve_api_key(None, None, "http://gpu-box:8000/v1") == "from-keyring"
    assert resolve_api_key(None, None, "http://other/v1") is None
    monkeypatch.setitem(sys.modules, "keyring", None)  # not installed
    assert resolve_api_key(None, None, "http://gpu-box:8000/v1") is None
