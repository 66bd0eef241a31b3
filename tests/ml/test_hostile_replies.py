"""Hostile judge replies over a real server on 127.0.0.1: recorded as unparsed with the raw text, never raised."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aesthete_gui.cli import main
from aesthete_gui.store import open_profile
from tests.ml.chat_server import Action, ChatServer

SET_REPLIES = {
    "superscript": '<answer>{"best": "²", "worst": "1"}</answer>',
    "5,000 digits": '<answer>{"best": ' + "9" * 5000 + ', "worst": 1}</answer>',
    "5,000 digits as text": '<answer>{"best": "' + "9" * 5000 + '", "worst": 1}</answer>',
}


@pytest.mark.parametrize("name", list(SET_REPLIES))
def test_a_set_reply_with_an_impossible_best_is_kept_unparsed(
    name: str, photo_paths: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reply = SET_REPLIES[name]
    profile = tmp_path / "p.db"
    with ChatServer(lambda body, call: Action(reply)) as server:
        code = main(
            ["--profile", str(profile), "judge", "set", *photo_paths[:3], "--endpoint", server.base_url,
             "--model", "m", "--json", "--save"]
        )  # fmt: skip
    assert code == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["parsed"] is False and payload["best"] is None and payload["worst"] is None
    assert payload["raw"] == reply
    [stored] = open_profile(profile).judgments.records()
    assert stored.parsed is False and stored.raw == reply


def test_a_400_digit_pointwise_score_is_kept_unparsed(photo_paths: list[str]) -> None:
    from aesthete_gui.ml.remote import RemoteJudge

    reply = '<answer>{"technique": ' + "4" * 400 + ', "overall": "' + "3" * 400 + '"}</answer>'
    with ChatServer(lambda body, call: Action(reply)) as server:
        [record] = RemoteJudge(server.base_url, "m").score_items(photo_paths[:1])
    assert record.parsed is False and record.raw == reply
    assert all(value is None for value in record.scores.values())
    assert "technique: not a number in range" in record.rationale


# Content parts of any JSON type: the reply is kept, unparsed, never a TypeError.
HOSTILE_CONTENT = {
    "text is a number": [{"type": "text", "text": 5}],
    "text is null": [{"type": "text", "text": None}],
    "text is a list": [{"type": "text", "text": ["A", "B"]}],
    "text is an object": [{"type": "text", "text": {"technique": "A"}}],
    "part is a string": ["<answer>{}</answer>"],
    "content is a number": 42,
    "content is null": None,
    "content is an object": {"technique": "A", "overall": "A"},
    "content is an empty list": [],
}


def _content_reply(content: object):
    def respond(body: dict, call: int) -> Action:
        return Action(body={"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]})

    return respond


@pytest.mark.parametrize("name", list(HOSTILE_CONTENT))
def test_judge_pair_keeps_content_of_any_type_unparsed(
    name: str, photo_paths: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    content = HOSTILE_CONTENT[name]
    profile = tmp_path / "p.db"
    with ChatServer(_content_reply(content)) as server:
        code = main(["--profile", str(profile), "judge", "pair", *photo_paths[:2], "--endpoint", server.base_url,
                     "--model", "m", "--json", "--save"])  # fmt: skip
    assert code == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["parsed"] is False and set(payload["outcome"].values()) == {None}
    assert payload["raw"] == json.dumps(content, ensure_ascii=False)
    [stored] = open_profile(profile).judgments.records()
    assert stored.parsed is False and stored.raw == payload["raw"]


@pytest.mark.parametrize("name", ["text is a number", "content is an object", "content is null"])
def test_judge_set_keeps_content_of_any_type_unparsed(
    name: str, photo_paths: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with ChatServer(_content_reply(HOSTILE_CONTENT[name])) as server:
        code = main(["judge", "set", *photo_paths[:3], "--endpoint", server.base_url, "--model", "m", "--json"])
    assert code == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["parsed"] is False and payload["best"] is None
    assert payload["raw"] == json.dumps(HOSTILE_CONTENT[name], ensure_ascii=False)


def test_distill_against_content_of_every_type_keeps_replies_and_invents_nothing(tmp_path: Path) -> None:
    from aesthete_gui.ml.remote import RemoteJudge
    from aesthete_gui.services import distill
    from tests.services.taste_library import write_photos

    kinds = list(HOSTILE_CONTENT.values())
    profile = open_profile(tmp_path / "p.db")
    for path in write_photos(tmp_path / "photos", count=6):
        profile.catalog.ensure_image(str(path))
    options = distill.DistillOptions(pool=4, refs=3, batch_size=4, student=None)
    with ChatServer(lambda body, call: _content_reply(kinds[call % len(kinds)])(body, call)) as server:
        judge = RemoteJudge(server.base_url, "m", backoff_s=0.0, max_retries=0)
        with pytest.raises(distill.DistillFailed, match="no judgment parsed"):
            distill.distill_profile(profile, judge, options)
    kept = profile.judgments.records()
    assert kept and not any(j.parsed for j in kept)
    assert {j.raw for j in kept} <= {json.dumps(k, ensure_ascii=False) for k in kinds}
    assert [s for s in profile.scores.scorers() if s.startswith("bridge:")] == []
    profile.close()


# Credentials never come back: neither the key itself nor an echoed Authorization header.
KEY = "sk-live-0123456789abcdef"


def _echo_credentials(status: int):
    def respond(body: dict, call: int) -> Action:
        echoed = f"bad request; you sent Authorization: Bearer {KEY} and api_key={KEY}"
        return Action(status=status, body={"error": {"message": echoed}})

    return respond


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422, 500])
def test_a_server_echoing_the_key_never_puts_it_in_an_error(
    status: int, photo_paths: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setenv("AESTHETE_API_KEY", KEY)
    with ChatServer(_echo_credentials(status)) as server:
        code = main(["judge", "pair", *photo_paths[:2], "--endpoint", server.base_url, "--model", "m", "--json"])
        assert server.headers[0]["Authorization"] == f"Bearer {KEY}"  # it was sent...
    captured = capsys.readouterr()
    shown = captured.out + captured.err + caplog.text
    assert code == 2 and KEY not in shown  # ...and never shown
    assert "[redacted]" in shown and "Bearer [redacted]" in shown


def test_a_reply_echoing_the_key_is_stored_without_it(
    photo_paths: list[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("AESTHETE_API_KEY", KEY)
    reply = f"Your key {KEY} looks fine. <answer>{{\"technique\": \"A\"}}</answer>"
    profile = tmp_path / "p.db"
    with ChatServer(lambda body, call: Action(reply)) as server:
        assert main(["--profile", str(profile), "judge", "pair", *photo_paths[:2], "--endpoint", server.base_url,
                     "--model", "m", "--json", "--save"]) == 0  # fmt: skip
    assert KEY not in capsys.readouterr().out
    [stored] = open_profile(profile).judgments.records()
    assert KEY not in stored.raw and "[redacted]" in stored.raw


# Control and bidi characters from a server never reach the terminal raw.
def test_raw_replies_with_control_characters_are_escaped_on_the_terminal(
    photo_paths: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    reply = "no answer\x1b[2J\x1b]0;owned\x07 \u202eevil\rback"
    with ChatServer(lambda body, call: Action(reply)) as server:
        assert main(["judge", "pair", *photo_paths[:2], "--endpoint", server.base_url, "--model", "m"]) == 0
        assert main(["judge", "set", *photo_paths[:3], "--endpoint", server.base_url, "--model", "m", "--explain"]) == 0
    captured = capsys.readouterr()
    shown = captured.out + captured.err
    assert not any(c in shown for c in ("\x1b", "\x07", "\u202e", "\r"))
    assert "no answer\\x1b[2J\\x1b]0;owned\\x07 \\u202eevil\\x0dback" in captured.out
