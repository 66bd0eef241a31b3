"""`aesthete distill` with a real (tiny, random) local VLM judge, and its user errors."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from aesthete_gui.cli import main
from aesthete_gui.store import open_profile
from tests.fixtures.tiny_models import build_tiny_qwen25_vl
from tests.ml.chat_server import Action, ChatServer, well_behaved
from tests.services.taste_library import write_photos


@pytest.mark.slow
def test_distill_with_a_local_judge_stores_every_judgment(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = build_tiny_qwen25_vl(tmp_path / "tiny-vlm")
    profile_path = str(tmp_path / "p.db")
    profile = open_profile(profile_path)
    for path in write_photos(tmp_path / "photos", count=4):
        profile.catalog.ensure_image(str(path))
    profile.close()
    code = main(["--profile", profile_path, "distill", "--judge", str(model), "--pool", "4", "--refs", "3", "--no-student", "--max-new-tokens", "8", "--json"])
    # a tiny random model answers noise: every reply is kept, none becomes a score
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert code == 2 and error.startswith("aesthete: error: distillation failed: no judgment parsed (6 asked")
    profile = open_profile(profile_path)
    [run] = profile.runs.all("distill")
    assert run.status == "failed" and run.result["unparsed"] == 6
    assert len(profile.judgments.records(run_id=run.id)) == 6
    assert profile.scores.scorers() == []
    profile.close()


def _profile_with_photos(tmp_path: Path, count: int = 8) -> str:
    profile_path = str(tmp_path / "p.db")
    profile = open_profile(profile_path)
    for path in write_photos(tmp_path / "photos", count=count):
        profile.catalog.ensure_image(str(path))
    profile.close()
    return profile_path


def _distill(profile_path: str, endpoint: str, *extra: str) -> int:
    return main(["--profile", profile_path, "distill", "--endpoint", endpoint, "--model", "m", "--pool", "5", "--refs", "3", "--no-student", *extra])


def test_distill_against_a_server_answering_garbage_fails_with_counts_and_resumes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    profile_path = _profile_with_photos(tmp_path)
    with ChatServer(lambda body, call: Action("Both are lovely.")) as server:
        code = _distill(profile_path, server.base_url)
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    last = err.strip().splitlines()[-1]
    assert last.startswith("aesthete: error: distillation failed: no judgment parsed (19 asked, 0 parsed, 0 failed (no answer), 19 unparsed)")
    assert "Both are lovely" in last and "19 stored judgments are kept in run 1" in last
    profile = open_profile(profile_path)
    assert profile.scores.scorers() == [] and profile.runs.get(1).status == "failed"
    assert len(profile.judgments.records(run_id=1)) == 19
    profile.close()
    with ChatServer(well_behaved) as server:
        assert _distill(profile_path, server.base_url, "--json") == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["run_id"] == 1 and summary["parsed"] == 19 and summary["scored"] == 8
    profile = open_profile(profile_path)
    assert profile.runs.get(1).status == "done" and len(profile.scores.of_scorer("bridge:remote:m")) == 8
    profile.close()


def test_distill_against_a_server_that_rejects_the_key_is_one_clear_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    profile_path = _profile_with_photos(tmp_path)
    with ChatServer(lambda body, call: Action(status=401, body={"error": {"message": "invalid key"}})) as server:
        code = _distill(profile_path, server.base_url)
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert err.strip().splitlines()[-1].startswith("aesthete: error: the judge cannot be used: HTTP 401: the server rejected the API key")
    profile = open_profile(profile_path)
    assert profile.scores.scorers() == [] and profile.runs.all("distill")[-1].status == "failed"
    profile.close()


def test_distill_sends_the_key_from_the_same_variable_as_judge_and_never_stores_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AESTHETE_API_KEY", "sk-one-variable")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    profile_path = _profile_with_photos(tmp_path)
    with ChatServer(lambda body, call: Action(status=401, body={"error": {"message": "invalid key"}})) as server:
        assert _distill(profile_path, server.base_url) == 2
    capsys.readouterr()
    assert server.headers and server.headers[0].get("Authorization") == "Bearer sk-one-variable"
    written = [p for p in tmp_path.rglob("*") if p.is_file()]  # the profile, its journal, thumbnails, runs
    assert written and not [p for p in written if b"sk-one-variable" in p.read_bytes()]


def test_distill_against_an_unreachable_server_is_one_clear_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    profile_path = _profile_with_photos(tmp_path)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    code = _distill(profile_path, f"http://127.0.0.1:{port}/v1")
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    last = err.strip().splitlines()[-1]
    assert last.startswith("aesthete: error: the judge cannot be used: cannot reach http://127.0.0.1:")
    assert "is the server running?" in last


def test_distill_needs_exactly_one_judge(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from aesthete_gui.store import open_profile

    profile_path = str(tmp_path / "p.db")
    open_profile(profile_path).close()
    assert main(["--profile", profile_path, "distill"]) == 2
    assert "--judge" in capsys.readouterr().err
    assert main(["--profile", profile_path, "distill", "--endpoint", "http://localhost:9/v1"]) == 2
    assert "--model" in capsys.readouterr().err
    assert main(["--profile", profile_path, "distill", "--judge", str(tmp_path / "no-model")]) == 2
