"""`aesthete rank`: CSV/JSON output, methods, anchors, bad rows by line, atomic output."""

from __future__ import annotations

import csv
import io
import json
import os
import re
from pathlib import Path

import numpy as np
import pytest

from aesthete_gui import atomic_write
from aesthete_gui.cli import main

from .conftest import simulate_outcomes

QUALITY = {"ace": 2.0, "bold": 1.0, "calm": 0.0, "dull": -1.0, "eh": -2.0}


def _write_comparisons(path: Path, with_dimension: bool = False, seed: int = 0) -> Path:
    names = list(QUALITY)
    latent = np.array([QUALITY[n] for n in names])
    first, second, score = simulate_outcomes(latent, 120, seed=seed, noise=0.7)
    winner = {1.0: "a", 0.0: "b", 0.5: "tie"}
    lines = ["a,b,winner" + (",dimension" if with_dimension else "")]
    for dimension in ("mood", "overall") if with_dimension else (None,):
        for i, j, s in zip(first, second, score, strict=True):
            lines.append(f"{names[i]},{names[j]},{winner[s]}" + (f",{dimension}" if dimension else ""))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _anchors(path: Path) -> Path:
    path.write_text("item,score\nace,4\ncalm,3\neh,2\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("method", ["elo", "davidson"])
def test_csv_to_stdout_orders_items(tmp_path, capsys, method) -> None:
    source = _write_comparisons(tmp_path / "votes.csv")
    assert main(["rank", str(source), "--method", method]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [row["item"] for row in rows] == ["ace", "bold", "calm", "dull", "eh"]
    assert set(rows[0]) == {"item", "latent", "score"}
    scores = [float(row["score"]) for row in rows]
    assert 1.0 < min(scores) < max(scores) < 5.0


def test_json_with_dimension_column(tmp_path, capsys) -> None:
    source = _write_comparisons(tmp_path / "votes.csv", with_dimension=True)
    assert main(["rank", str(source), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == 10
    assert all(set(row) == {"item", "latent", "score", "dimension"} for row in rows)
    assert {row["dimension"] for row in rows} == {"mood", "overall"}
    mood = [row["item"] for row in rows if row["dimension"] == "mood"]
    assert mood[0] == "ace" and mood[-1] == "eh"


@pytest.mark.parametrize("method", ["anchored-elo", "davidson"])
def test_anchors_set_the_scale(tmp_path, capsys, method) -> None:
    source = _write_comparisons(tmp_path / "votes.csv")
    anchors = _anchors(tmp_path / "anchors.csv")
    assert main(["rank", str(source), "--anchors", str(anchors), "--method", method, "--json"]) == 0
    scores = {row["item"]: row["score"] for row in json.loads(capsys.readouterr().out)}
    assert scores["ace"] == pytest.approx(4.0, abs=0.5)
    assert scores["calm"] == pytest.approx(3.0, abs=0.5)
    assert scores["eh"] == pytest.approx(2.0, abs=0.5)
    assert scores["ace"] > scores["bold"] > scores["calm"] > scores["dull"] > scores["eh"]


def test_default_method_uses_anchors_when_given(tmp_path, capsys) -> None:
    source = _write_comparisons(tmp_path / "votes.csv")
    anchors = _anchors(tmp_path / "anchors.csv")
    assert main(["rank", str(source), "--anchors", str(anchors), "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == 5


def test_output_file_is_written_whole(tmp_path) -> None:
    source = _write_comparisons(tmp_path / "votes.csv")
    target = tmp_path / "ranking.json"
    assert main(["rank", str(source), "--json", "--output", str(target)]) == 0
    assert len(json.loads(target.read_text(encoding="utf-8"))) == 5
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("a,b,winner\nx,y,a\nx,y,maybe\n", "line 3: winner must be a, b or tie, got 'maybe'"),
        ("a,b,winner\nx,y,a\nx,x,b\n", "line 3: item 'x' is compared with itself"),
        ("a,b,winner\nx,,a\n", "line 2: both a and b must name an item"),
        ("a,b,winner\nx,y,a\nx,y\n", "line 3: expected 3 fields, got 2"),
        ("a,b,result\nx,y,a\n", "line 1: missing column\\(s\\) winner"),
        ("a,b,winner,dimension\nx,y,a,mood\ny,x,b,\n", "line 3: empty dimension"),
        ("", "empty file"),
        ("a,b,winner\n", "no comparisons found"),
    ],
)
def test_bad_comparison_rows_name_the_line(tmp_path, capsys, content, message) -> None:
    source = tmp_path / "bad.csv"
    source.write_text(content, encoding="utf-8")
    assert main(["rank", str(source)]) == 2
    error = capsys.readouterr().err
    assert "aesthete: error:" in error
    assert re.search(message, error)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("item,score\nace,4\ncalm,high\n", "line 3: score 'high' is not a number"),
        ("item,score\nace,4\ncalm,7\n", "line 3: score must lie within 1..5"),
        ("item,score\nace,4\nace,3\n", "line 3: item 'ace' is anchored twice"),
        ("item,score\nace,4\nghost,2\n", "not found in the comparisons: ghost"),
        ("item,score\nace,4\n", "at least 2 anchors"),
        ("item,level\nace,4\n", "missing column"),
    ],
)
def test_bad_anchor_files_are_reported(tmp_path, capsys, content, message) -> None:
    source = _write_comparisons(tmp_path / "votes.csv")
    anchors = tmp_path / "anchors.csv"
    anchors.write_text(content, encoding="utf-8")
    assert main(["rank", str(source), "--anchors", str(anchors)]) == 2
    assert message in capsys.readouterr().err


def test_method_and_anchor_combinations_are_checked(tmp_path, capsys) -> None:
    source = _write_comparisons(tmp_path / "votes.csv")
    anchors = _anchors(tmp_path / "anchors.csv")
    assert main(["rank", str(source), "--anchors", str(anchors), "--method", "elo"]) == 2
    assert "does not use anchors" in capsys.readouterr().err
    assert main(["rank", str(source), "--method", "anchored-elo"]) == 2
    assert "needs --anchors" in capsys.readouterr().err
    assert main(["rank", str(tmp_path / "missing.csv")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_not_utf8_is_a_clear_error(tmp_path, capsys) -> None:
    source = tmp_path / "latin.csv"
    source.write_bytes("a,b,winner\ncaf\xe9,tea,a\n".encode("latin-1"))
    assert main(["rank", str(source)]) == 2
    assert "not UTF-8" in capsys.readouterr().err


def test_a_failed_run_leaves_the_previous_output_untouched(tmp_path, capsys) -> None:
    target = tmp_path / "ranking.csv"
    target.write_text("previous result\n", encoding="utf-8")
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b,winner\nx,y,a\nx,y,nope\n", encoding="utf-8")
    assert main(["rank", str(bad), "--output", str(target)]) == 2
    assert target.read_text(encoding="utf-8") == "previous result\n"


def test_a_failed_rename_leaves_no_partial_file(tmp_path, capsys, monkeypatch) -> None:
    source = _write_comparisons(tmp_path / "votes.csv")
    target = tmp_path / "ranking.csv"
    target.write_text("previous result\n", encoding="utf-8")

    def refuse(src, dst):
        raise OSError(28, "No space left on device")

    from aesthete_gui.services import output_guard

    monkeypatch.setattr(atomic_write.os, "replace", refuse)
    monkeypatch.setattr(output_guard, "exchange", refuse)  # the report is swapped in where the system can
    assert main(["rank", str(source), "--output", str(target)]) == 2
    assert "cannot write" in capsys.readouterr().err
    assert target.read_text(encoding="utf-8") == "previous result\n"
    assert sorted(os.listdir(tmp_path)) == ["ranking.csv", "votes.csv"]


def test_stdin_input(tmp_path, capsys, monkeypatch) -> None:
    data = b"a,b,winner\nx,y,a\ny,z,a\nx,z,tie\n"
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert main(["rank", "-", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows[0]["item"] == "x"
