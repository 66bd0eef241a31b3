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
