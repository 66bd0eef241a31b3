"""Scoring on a server from its log-probabilities, against a scripted server on 127.0.0.1 that encodes
the expected score of each image and dimension, in both reading styles."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from aesthete_gui.cli import main
from aesthete_gui.engine.dimensions import DIMENSIONS
from aesthete_gui.ml.remote import image_part
from aesthete_gui.ml.remote_scoring import (
    RemoteScorer,
    ServerCannotScore,
    answer_digit_tokens,
    digit_expectation,
)
from aesthete_gui.store import open_profile
from tests.ml.chat_server import ChatServer
from tests.ml.logprob_server import LogprobServerScript, expected_score

STYLES = ("continue", "generate")


def _expected(path: str) -> dict[str, float]:
    url = image_part(path, 1024)["image_url"]["url"]
    return {d: expected_score(url, d) for d in DIMENSIONS}


def _import(tmp_path: Path, photo_paths: list[str]) -> Path:
    profile = tmp_path / "p.db"
    folder = Path(photo_paths[0]).parent
    assert main(["--profile", str(profile), "import", "--quiet", "--workers", "1", str(folder)]) == 0
    return profile


@pytest.mark.parametrize("style", STYLES)
def test_scores_equal_the_expectation_the_server_encodes(style: str, photo_paths: list[str]) -> None:
    script = LogprobServerScript()
    with ChatServer(script) as server:
        scores = RemoteScorer(server.base_url, "m", style=style).score_paths(photo_paths[:4])
        first = server.requests[0]
    for path, got in zip(photo_paths[:4], scores, strict=True):
        want = _expected(path)
        assert set(got) == set(DIMENSIONS)
        assert all(abs(got[d] - want[d]) <= 0.01 for d in DIMENSIONS), (got, want)
    # the rubric comes first, then the image: the servers' prefix caches share the rubric
    parts = first["messages"][0]["content"]
    assert [p["type"] for p in parts] == ["text", "image_url"] and "rubric" in parts[0]["text"]
    assert first["logprobs"] is True and first["top_logprobs"] >= 5 and first["temperature"] == 0.0
    if style == "continue":
        assert first["continue_final_message"] is True and first["add_generation_prompt"] is False
        assert first["max_tokens"] == 1 and first["messages"][1] == {"role": "assistant", "content": '<answer>{"technique": '}
    assert len(script.seen) == (5 if style == "continue" else 1) * 4


@pytest.mark.parametrize("style", STYLES)
def test_the_cli_prints_the_scores_as_json_and_stores_them_with_save(
    style: str, photo_paths: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    profile = _import(tmp_path, photo_paths)
    capsys.readouterr()
    with ChatServer(LogprobServerScript()) as server:
        code = main(["--profile", str(profile), "score", "--endpoint", server.base_url, "--model", "qwen-vl",
                     "--style", style, "--json", "--save"])  # fmt: skip
    assert code == 0
    rows = json.loads(capsys.readouterr().out)
    assert sorted(r["path"] for r in rows) == sorted(photo_paths)
    for row in rows:
        want = _expected(row["path"])
        assert set(row) == {"path", "scores"} and all(abs(row["scores"][d] - want[d]) <= 0.01 for d in DIMENSIONS)
    stored = open_profile(profile).scores.of_scorer("server:qwen-vl")
    assert len(stored) == len(photo_paths)


def test_concurrency_is_honoured(photo_paths: list[str]) -> None:
    for concurrency in (1, 3, 8):
        script = LogprobServerScript(delay=0.2)  # long enough for every slot to fill on a busy machine
        with ChatServer(script) as server:
            RemoteScorer(server.base_url, "m", concurrency=concurrency).score_paths(photo_paths[: max(2, concurrency)])
        assert script.peak == concurrency  # an image's last four requests and the next images fill the slots


def test_the_cli_concurrency_default_is_8(photo_paths: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    script = LogprobServerScript(delay=0.2)
    with ChatServer(script) as server:
        assert main(["score", *photo_paths, "--endpoint", server.base_url, "--model", "m", "--json"]) == 0
    assert script.peak == 8
    script = LogprobServerScript(delay=0.2)
    with ChatServer(script) as server:
        assert main(["score", *photo_paths[:2], "--endpoint", server.base_url, "--model", "m", "--concurrency", "2"]) == 0
    assert script.peak == 2


def test_an_image_asks_its_first_dimension_alone_then_the_rest_on_the_same_server(photo_paths: list[str]) -> None:
    one, two = LogprobServerScript(), LogprobServerScript()
    with ChatServer(one) as first, ChatServer(two) as second:
        RemoteScorer(f"{first.base_url},{second.base_url}", "m", concurrency=4).score_paths(photo_paths)
    assert one.seen and two.seen  # round robin spread the images over both servers
    for script in (one, two):
        urls = {url for url, _, _ in script.seen}
        for url in urls:
            asked = [(dimension, at) for u, dimension, at in script.seen if u == url]
            assert sorted(d for d, _ in asked) == sorted(DIMENSIONS)  # every request of an image on one server
            assert asked[0][0] == DIMENSIONS[0]  # the first dimension first (the image enters the prefix cache)
    assert not {u for u, _, _ in one.seen} & {u for u, _, _ in two.seen}


def test_several_endpoints_repeat_or_comma_separated_on_the_cli(photo_paths: list[str], capsys) -> None:
    one, two = LogprobServerScript(), LogprobServerScript()
    with ChatServer(one) as first, ChatServer(two) as second:
        assert main(["score", *photo_paths[:4], "--endpoint", first.base_url, "--endpoint", second.base_url,
                     "--model", "m", "--json"]) == 0  # fmt: skip
    assert len(one.seen) == len(two.seen) == 10


def test_a_server_without_log_probabilities_fails_in_one_line_and_stores_nothing(
    photo_paths: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    profile = _import(tmp_path, photo_paths)
    capsys.readouterr()
    for style in STYLES:
        script = LogprobServerScript(logprobs=False)
        with ChatServer(script) as server:
            code = main(["--profile", str(profile), "score", "--endpoint", server.base_url, "--model", "m",
                         "--style", style, "--save"])  # fmt: skip
        captured = capsys.readouterr()
        assert code == 2 and captured.out == ""
        [line] = captured.err.splitlines()
        assert line.startswith("aesthete: error: the server at") and "returned no log-probabilities" in line
        assert "nothing was stored" in line
        assert open_profile(profile).scores.of_scorer("server:m") == {}
        assert len(script.seen) <= 8  # it stopped at once, not after the whole library


def test_unreadable_replies_are_counted_never_turned_into_scores(
    photo_paths: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = {image_part(p, 1024)["image_url"]["url"] for p in photo_paths[:2]}
    profile = _import(tmp_path, photo_paths)
    capsys.readouterr()
    for style in STYLES:
        script = LogprobServerScript(unreadable=lambda url, dimension: url in broken and dimension == "mood")
        with ChatServer(script) as server:
            scorer = RemoteScorer(server.base_url, "m", style=style)
            scores = scorer.score_paths(photo_paths)
        assert scorer.stats.unreadable_replies == 2
        for path, got in zip(photo_paths, scores, strict=True):
            want = set(DIMENSIONS) - ({"mood"} if image_part(path, 1024)["image_url"]["url"] in broken else set())
            assert set(got) == want
    with ChatServer(LogprobServerScript(unreadable=lambda url, dimension: url in broken and dimension == "mood")) as server:
        assert main(["--profile", str(profile), "score", "--endpoint", server.base_url, "--model", "m", "--save"]) == 0
    assert "2 replies had no readable score digit" in capsys.readouterr().err
    stored = open_profile(profile).scores.of_scorer("server:m")
    assert sorted(len(v) for v in stored.values()) == [4, 4] + [5] * (len(photo_paths) - 2)


def test_a_server_that_does_not_continue_the_answer_is_named(photo_paths: list[str]) -> None:
    with ChatServer(LogprobServerScript(continues=False)) as server, pytest.raises(
        ServerCannotScore, match=r"continue_final_message.*--style generate"
    ):
        RemoteScorer(server.base_url, "m", concurrency=2).score_paths(photo_paths)


def test_the_api_key_comes_from_the_environment(photo_paths: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AESTHETE_API_KEY", "sk-test-key")
    with ChatServer(LogprobServerScript()) as server:
        RemoteScorer(server.base_url, "m").score_paths(photo_paths[:1])
        assert {h["Authorization"] for h in server.headers} == {"Bearer sk-test-key"}


def test_unreadable_images_get_no_score(photo_paths: list[str], tmp_path: Path) -> None:
    broken = tmp_path / "broken.jpg"
    broken.write_bytes(b"not a jpeg")
    script = LogprobServerScript()
    with ChatServer(script) as server:
        scores = RemoteScorer(server.base_url, "m").score_paths([str(broken), photo_paths[0]])
    assert scores[0] == {} and set(scores[1]) == set(DIMENSIONS)
    assert len(script.seen) == 5


@pytest.mark.parametrize(
    ("top", "expected"),
    [
        ([{"token": "4", "logprob": 0.0}], 4.0),
        ([{"token": "2", "logprob": math.log(0.3)}, {"token": " 4", "logprob": math.log(0.3)}, {"token": "x", "logprob": -0.5}], 3.0),
        ([{"token": "4", "logprob": math.log(0.5)}, {"token": "4", "logprob": math.log(0.5)}, {"token": "2", "logprob": math.log(0.5)}], 3.0),
        ([{"token": "45", "logprob": 0.0}], None),
        ([{"token": 5, "logprob": 0.0}, {"token": "3", "logprob": "x"}, {"token": "1", "logprob": True}], None),
        ([{"token": "3", "logprob": float("nan")}, {"token": "2", "logprob": 2.0}], None),
        ([{"token": "3", "logprob": -1e6}], None),
        ("3", None),
        (None, None),
        ([None, 5, "x", [], {"token": "5", "logprob": -0.1}], 5.0),
        # an attack's server: almost no weight on any digit was renormalised into a confident 5.00
        ([{"token": "the", "logprob": -0.0001}, {"token": "5", "logprob": -80.0}], None),
        ([{"token": "1e308", "logprob": -0.01}], None),
        ([{"token": "1st", "logprob": -0.01}, {"token": "4.5", "logprob": -0.01}], None),
        ([{"token": "4,", "logprob": -0.01}, {"token": ' 2"', "logprob": -0.01}], 3.0),
    ],
)
def test_digit_expectation_reads_only_well_formed_digit_entries(top: object, expected: float | None) -> None:
    got = digit_expectation(top)
    assert got == expected if expected is None else abs(got - expected) < 1e-9


def test_answer_digits_are_found_after_the_reasoning() -> None:
    tokens = [{"token": t} for t in ['"technique": 2', "<answer>", '{"', "technique", '": ', "4", ".", "5",
                                     ', "mood": "', "3", '"}', 7]]  # fmt: skip
    assert answer_digit_tokens(tokens) == {"technique": 5, "mood": 9}


def test_a_cancel_ends_scoring_against_a_server_that_never_answers_at_once(photo_paths: list[str]) -> None:
    """An attack: Ctrl-C against a server that accepts and never answers took 484 s, the run sitting out
    every retry of the requests in flight. A cancel now ends the run within a poll; the requests in
    flight end on their own, in the background."""
    import socket
    import threading
    import time

    from aesthete_gui.jobs import Cancelled, CancelToken

    listener = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []

    def accept_and_say_nothing() -> None:
        while True:
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            held.append(connection)

    threading.Thread(target=accept_and_say_nothing, daemon=True).start()
    url = f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
    scorer = RemoteScorer(url, "m", timeout_s=5.0, max_retries=3, concurrency=2)
    token = CancelToken()
    threading.Timer(0.5, token.cancel).start()
    started = time.monotonic()
    try:
        with pytest.raises(Cancelled):
            scorer.score_paths(photo_paths[:3], cancel=token)
        elapsed = time.monotonic() - started
    finally:
        listener.close()
        for connection in held:
            connection.close()
    assert elapsed < 3.0, elapsed  # one request's timeout is 5 s; its four attempts with backoff took 27 s
