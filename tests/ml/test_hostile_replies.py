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
