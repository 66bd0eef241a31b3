"""`aesthete scorers` and `aesthete score-profile`: the registry and typed results as JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aesthete_gui.cli import main
from aesthete_gui.services.library import import_folders
from aesthete_gui.store import open_profile
from tests.services.taste_library import write_photos


def test_list_then_score_with_a_registered_scorer(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_photos(tmp_path / "photos", 4)
    db = tmp_path / "profile.db"
    profile = open_profile(db)
    import_folders(profile, [str(tmp_path / "photos")])
    first = profile.catalog.images()[0]
    profile.close()

    assert main(["--profile", str(db), "scorers", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert listed[0] == {"id": "builtin", "kind": "builtin", "label": "Built-in rules (no model)", "runs_model": False, "can_score": True}

    assert main(["--profile", str(db), "score-profile", "--scorer", "builtin", "--image-id", str(first.id), "--json"]) == 0
    scored = json.loads(capsys.readouterr().out)
    assert scored["scorer"] == "builtin" and scored["unreadable"] == []
    assert [row["id"] for row in scored["images"]] == [first.id]
    assert scored["images"][0]["path"] == first.path
    assert all(1 <= v <= 5 for v in scored["images"][0]["scores"].values())

    assert main(["--profile", str(db), "score-profile", "--scorer", "nonsense:x"]) == 2
    assert "no scorer 'student:nonsense:x'; available: builtin" in capsys.readouterr().err


def _library(tmp_path: Path, names: list[str]) -> Path:
    from PIL import Image

    shoot = tmp_path / "shoot"
    shoot.mkdir()
    for index, name in enumerate(names):
        Image.new("RGB", (96, 64), (40 * index, 120, 200 - 30 * index)).save(shoot / name, "JPEG")
    db = tmp_path / "p.db"
    assert main(["--profile", str(db), "import", "--quiet", "--workers", "1", str(shoot)]) == 0
    return db


def test_score_resolves_images_like_mark_does_inside_the_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    db = _library(tmp_path, ["IMG_0029.JPG", "IMG_0030.JPG"])
    monkeypatch.chdir(tmp_path / "shoot")
    capsys.readouterr()
    assert main(["--profile", str(db), "score", "--model", "builtin", "IMG_0029.JPG", "--json"]) == 0
    [row] = json.loads(capsys.readouterr().out)
    assert row["path"] == str(tmp_path / "shoot" / "IMG_0029.JPG") and len(row["scores"]) == 5
    assert main(["--profile", str(db), "mark", "IMG_0030.JPG", "--stars", "2"]) == 0
    assert open_profile(db).scores.of_scorer("builtin") == {}  # nothing stored without --save
    assert main(["--profile", str(db), "score", "--model", "builtin", "IMG_0029.JPG", "--save"]) == 0
    assert len(open_profile(db).scores.of_scorer("builtin")) == 1
    capsys.readouterr()
    assert main(["--profile", str(db), "score", "--model", "builtin", "IMG_9999.JPG"]) == 2
    assert "image not in the profile: IMG_9999.JPG (import its folder first)" in capsys.readouterr().err


def test_every_scoring_command_escapes_hostile_file_names(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hostile = "evil\x1b[2J\u202egpj.jpg"
    db = _library(tmp_path, [hostile])
    capsys.readouterr()
    assert main(["--profile", str(db), "score", "--model", "builtin"]) == 0
    assert main(["--profile", str(db), "score-profile", "--scorer", "builtin"]) == 0
    assert main(["--profile", str(db), "mark", "1", "--pick"]) == 0
    assert main(["--profile", str(db), "copy-picks", str(tmp_path / "out\x07\u202e")]) == 0
    assert main(["--profile", str(db), "score", "--model", "builtin", "--json"]) == 0
    captured = capsys.readouterr()
    shown = captured.out + captured.err
    assert not any(c in shown for c in ("\x1b", "\u202e", "\x07"))
    assert shown.count("evil\\x1b[2J\\u202egpj.jpg") == 3  # mark, score and score-profile
    assert "copied to " + str(tmp_path / "out\\x07\\u202e") in shown  # copy-picks
    last_line = captured.out.strip().splitlines()[-1]
    assert json.loads(last_line)[0]["path"].endswith(hostile)  # the JSON still decodes to the real name
