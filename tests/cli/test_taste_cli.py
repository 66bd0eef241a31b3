"""`aesthete prefer | taste | rank-images` end to end on a real profile (exit codes, output, errors)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from aesthete_gui.cli import main
from aesthete_gui.store import open_profile
from tests.services.taste_library import brightness_taste, build_profile, copy_profile


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("taste-cli-template")
    build_profile(root, count=20)
    return root


@pytest.fixture
def profile_path(template: Path, tmp_path: Path) -> str:
    return str(copy_profile(template, tmp_path / "p"))


def _paths(profile_path: str) -> tuple[list[str], dict[str, float]]:
    profile = open_profile(profile_path)
    try:
        return sorted(r.path for r in profile.catalog.images()), brightness_taste(profile)
    finally:
        profile.close()


def test_prefer_train_list_use_and_rank(profile_path: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    paths, utility = _paths(profile_path)
    assert main(["--profile", profile_path, "prefer", paths[0], paths[1], "--winner", "b", "--dimension", "mood"]) == 0
    assert "recorded choice" in capsys.readouterr().out
    rng = np.random.default_rng(1)
    rows = ["a,b,winner"]
    for _ in range(40):
        a, b = rng.choice(len(paths), size=2, replace=False)
        rows.append(f"{paths[a]},{paths[b]},{'a' if utility[paths[a]] > utility[paths[b]] else 'b'}")
    csv_file = tmp_path / "choices.csv"
    csv_file.write_text("\n".join(rows) + "\n")
    assert main(["--profile", profile_path, "prefer", "--from", str(csv_file)]) == 0
    assert "imported 40 choices" in capsys.readouterr().out

    assert main(["--profile", profile_path, "taste", "train", "--name", "bright", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["name"] == "bright" and report["held_out"] == 20  # the 20 latest choices
    assert 0.0 <= report["adapter_agreement"]["low"] <= report["adapter_agreement"]["high"] <= 1.0
    assert report["active"] is (report["adapter_agreement"]["mean"] >= report["base_agreement"]["mean"])
    assert report["active"]  # this user's taste is learnable: the adapter beats the base

    assert main(["--profile", profile_path, "taste", "list"]) == 0
    assert "* bright" in capsys.readouterr().out
    assert main(["--profile", profile_path, "taste", "eval", "--json"]) == 0
    evaluation = json.loads(capsys.readouterr().out)
    assert evaluation["held_out"] == 20 and evaluation["would_activate"] is True
    assert main(["--profile", profile_path, "taste", "suggest", "--count", "2", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == 2

    assert main(["--profile", profile_path, "rank-images", "--json"]) == 0
    ranked = json.loads(capsys.readouterr().out)
    assert len(ranked) == 20 and ranked[0]["adapter"] == "bright"
    assert [r["score"] for r in ranked] == sorted((r["score"] for r in ranked), reverse=True)
    assert utility[ranked[0]["path"]] > utility[ranked[-1]["path"]]

    assert main(["--profile", profile_path, "taste", "use", "none"]) == 0
    capsys.readouterr()
    assert main(["--profile", profile_path, "rank-images", "--json", "--limit", "3"]) == 0
    plain = json.loads(capsys.readouterr().out)
    assert len(plain) == 3 and plain[0]["adapter"] is None
    assert main(["--profile", profile_path, "rank-images", "--adapter", "bright", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["adapter"] == "bright"


def test_user_mistakes_exit_2_and_keep_everything(profile_path: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    paths, _ = _paths(profile_path)
    bad = tmp_path / "bad.csv"
    bad.write_text(f"a,b,winner\n{paths[0]},{paths[1]},a\n{paths[0]},{paths[1]},left\n")
    assert main(["--profile", profile_path, "prefer", "--from", str(bad)]) == 2
    assert "line 3" in capsys.readouterr().err
    assert main(["--profile", profile_path, "prefer", paths[0], "/not/here.jpg", "--winner", "a"]) == 2
    assert "not in the profile" in capsys.readouterr().err
    assert main(["--profile", profile_path, "prefer", paths[0]]) == 2
    assert main(["--profile", profile_path, "taste", "train"]) == 2
    assert "no choices" in capsys.readouterr().err
    assert main(["--profile", profile_path, "taste", "use", "ghost"]) == 2
    assert main(["--profile", profile_path, "rank-images", "--adapter", "ghost"]) == 2
    profile = open_profile(profile_path)
    assert profile.choices.all() == []
    profile.close()


def test_too_few_held_out_choices_report_null_and_stay_inactive(profile_path: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    paths, utility = _paths(profile_path)
    rng = np.random.default_rng(2)
    rows = ["a,b,winner"]
    for _ in range(30):
        a, b = rng.choice(len(paths), size=2, replace=False)
        rows.append(f"{paths[a]},{paths[b]},{'a' if utility[paths[a]] > utility[paths[b]] else 'b'}")
    csv_file = tmp_path / "choices.csv"
    csv_file.write_text("\n".join(rows) + "\n")
    assert main(["--profile", profile_path, "prefer", "--from", str(csv_file)]) == 0
    capsys.readouterr()
    assert main(["--profile", profile_path, "taste", "train", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["held_out"] == 10  # 30 choices: 20 must stay to train on
    assert report["base_agreement"] is None and report["adapter_agreement"] is None
    assert report["active"] is False
    assert main(["--profile", profile_path, "taste", "list", "--json"]) == 0
    [listed] = json.loads(capsys.readouterr().out)
    assert {k: listed[k] for k in ("held_out", "base_agreement", "adapter_agreement", "active")} == {
        "held_out": 10, "base_agreement": None, "adapter_agreement": None, "active": False}
    assert main(["--profile", profile_path, "taste", "train"]) == 0
    out = capsys.readouterr().out
    assert "not enough held-out choices to measure: 10 of 20" in out and "%" not in out
    assert "is NOT active" in out and "taste use default" in out
    assert main(["--profile", profile_path, "taste", "list"]) == 0
    assert "not enough held-out choices to measure: 10 of 20" in capsys.readouterr().out
    assert main(["--profile", profile_path, "taste", "use", "default"]) == 0
    out = capsys.readouterr().out
    assert "active adapter: default" in out and "not enough held-out choices" in out


def test_suggest_skips_rejects_unless_asked(profile_path: str, capsys: pytest.CaptureFixture[str]) -> None:
    profile = open_profile(profile_path)
    try:
        rejected = sorted(profile.catalog.images(), key=lambda r: r.path)[:6]
        for record in rejected:
            profile.marks.set(record.id, flag="reject")
    finally:
        profile.close()
    rejected_paths = {r.path for r in rejected}
    assert main(["--profile", profile_path, "taste", "suggest", "--count", "10", "--json"]) == 0
    offered = {p for pair in json.loads(capsys.readouterr().out) for p in (pair["a"], pair["b"])}
    assert offered and not offered & rejected_paths
    assert main(["--profile", profile_path, "taste", "suggest", "--count", "10", "--include-rejects", "--json"]) == 0
    offered = {p for pair in json.loads(capsys.readouterr().out) for p in (pair["a"], pair["b"])}
    assert offered & rejected_paths  # 10 pairs of 20 images: the rejects are back



def test_taste_progress_into_a_log_is_one_line_per_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    """Piped into a file, rank-images left stray "\rimage properties and embeddings …" lines above
    its ranking: the redrawn line is for a terminal; a log gets each pass's end on a line of its own."""
    import io
    import sys

    from aesthete_gui.cli.taste import progress_printer
    from aesthete_gui.jobs import Progress

    log = io.StringIO()
    monkeypatch.setattr(sys, "stderr", log)
    bar = progress_printer(quiet=False)
    for done in range(4):
        bar(Progress(done, 3, "image properties and embeddings"))
    for epoch in range(1, 3):
        bar(Progress(epoch, 2, f"student epoch {epoch}/2"))
    bar.close()
    assert log.getvalue() == "3/3 image properties and embeddings\n2/2 student epoch\n"
    silent = progress_printer(quiet=True)  # --json: stderr carries errors only
    silent(Progress(1, 1, "embeddings"))
    silent.close()
    assert log.getvalue().count("\n") == 2
