"""`aesthete distill` with a real (tiny, random) local VLM judge, and its user errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aesthete_gui.cli import main
from aesthete_gui.store import open_profile
from tests.fixtures.tiny_models import build_tiny_qwen25_vl
from tests.services.taste_library import write_photos


@pytest.mark.slow
def test_distill_with_a_local_judge_stores_every_judgment(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = build_tiny_qwen25_vl(tmp_path / "tiny-vlm")
    profile_path = str(tmp_path / "p.db")
    profile = open_profile(profile_path)
    for path in write_photos(tmp_path / "photos", count=4):
        profile.ensure_image(str(path))
    profile.close()
    code = main(["--profile", profile_path, "distill", "--judge", str(model), "--pool", "3", "--refs", "1", "--no-student", "--max-new-tokens", "8", "--json"])
    assert code == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["calls_planned"] == 3 + 1
    profile = open_profile(profile_path)
    assert len(profile.judgments(run_id=summary["run_id"])) == summary["calls_made"] == 4
    assert profile.run(summary["run_id"]).status == "done"
    profile.close()


def test_distill_needs_exactly_one_judge(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    profile_path = str(tmp_path / "p.db")
    assert main(["--profile", profile_path, "distill"]) == 2
    assert "--judge" in capsys.readouterr().err
    assert main(["--profile", profile_path, "distill", "--endpoint", "http://localhost:9/v1"]) == 2
    assert "--model" in capsys.readouterr().err
    assert main(["--profile", profile_path, "distill", "--judge", str(tmp_path / "no-model")]) == 2
