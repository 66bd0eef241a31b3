"""`aesthete bursts` names each burst's best frame: the very frame the grid shows for a collapsed burst."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aesthete_gui.cli import main
from aesthete_gui.qt.grid_rows import FilterState, arrange, load_rows
from aesthete_gui.store import open_profile
from tests.services.library_images import write_jpeg


def _bursts(profile: Path, capsys: pytest.CaptureFixture[str]) -> list[dict]:
    assert main(["--profile", str(profile), "bursts", "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _grid_best(profile_path: Path) -> set[int]:
    profile = open_profile(profile_path)
    try:
        rows, _ = arrange(load_rows(profile, "builtin"), FilterState(collapse_bursts=True), "capture_time")
        return {row.image_id for row in rows if row.burst_id is not None}
    finally:
        profile.close()


def _scored_burst(tmp_path: Path, capsys: pytest.CaptureFixture[str], overall: tuple[float, float, float]) -> tuple[Path, dict[str, int]]:
    """A burst of three frames imported into a new profile, with these built-in overall scores."""
    shoot = tmp_path / "shoot"
    shoot.mkdir()
    for n in range(3):
        write_jpeg(shoot / f"B_{n}.jpg", seed=11, when="2024:06:01 12:00:00", subsec=f"{n}5")
    profile_path = tmp_path / "p.db"
    assert main(["--profile", str(profile_path), "import", "--quiet", str(shoot)]) == 0
    capsys.readouterr()
    profile = open_profile(profile_path)
    ids = {Path(i.path).name: i.id for i in profile.catalog.images()}
    profile.scores.put_many("builtin", [(ids[f"B_{n}.jpg"], {"overall": score}) for n, score in enumerate(overall)])
    profile.close()
    return profile_path, ids


def test_the_best_frame_is_named_and_is_the_grids(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    profile_path, ids = _scored_burst(tmp_path, capsys, (3.1, 3.9, 2.0))
    shoot = tmp_path / "shoot"
    [burst] = _bursts(profile_path, capsys)
    assert burst["best"] == ids["B_1.jpg"] and [i["best"] for i in burst["images"]] == [False, True, False]
    assert _grid_best(profile_path) == {ids["B_1.jpg"]}

    assert main(["--profile", str(profile_path), "mark", str(shoot / "B_1.jpg"), "--reject"]) == 0
    capsys.readouterr()
    [burst] = _bursts(profile_path, capsys)
    assert burst["best"] == ids["B_0.jpg"] and _grid_best(profile_path) == {ids["B_0.jpg"]}

    # a pick on a frame the checks rank lower: the grid shows it, and so does `aesthete bursts` (it
    # kept starring the checks' choice in a trial)
    assert main(["--profile", str(profile_path), "mark", str(shoot / "B_2.jpg"), "--pick"]) == 0
    capsys.readouterr()
    [burst] = _bursts(profile_path, capsys)
    assert burst["best"] == ids["B_2.jpg"] and _grid_best(profile_path) == {ids["B_2.jpg"]}
    assert main(["--profile", str(profile_path), "mark", str(shoot / "B_2.jpg"), "--unflag"]) == 0
    capsys.readouterr()

    assert main(["--profile", str(profile_path), "bursts"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("burst ") and "3 frames" in lines[0]
    assert [line.endswith("(best)") for line in lines[1:4]] == [True, False, False]
    assert lines[1].lstrip().startswith("* ") and "B_0.jpg" in lines[1]
    assert "B_1.jpg" in lines[2] and lines[2].endswith("  rejected")  # a trial saw none of its own decisions here
    assert [i["flag"] for i in _bursts(profile_path, capsys)[0]["images"]] == [None, "reject", None]
    assert "the frame each burst shows: the one you picked" in lines[-1]


def test_a_burst_holding_a_set_beside_ordinary_frames_keeps_its_best_frame(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Sets are found across the library, so a burst may hold a bracket's frames and ordinary ones:
    only the set's frames are named as such; the best ordinary frame stays the best."""
    from aesthete_gui.imaging.checks import checks_version

    profile_path, ids = _scored_burst(tmp_path, capsys, (3.9, 3.1, 2.0))
    profile = open_profile(profile_path)
    checks, faces = profile.checks.get(ids["B_2.jpg"])  # type: ignore[misc]
    in_set = "kept with its set (exposure bracket of 2 frames (-2, 0 EV)): never a suggested reject"
    profile.checks.put_many([(ids["B_2.jpg"], checks_version(), [*checks, {"name": "sequence", "value": 0.0, "verdict": "ok",
                                                                          "reason": in_set}], faces, "ok")])  # fmt: skip
    profile.close()
    [burst] = _bursts(profile_path, capsys)
    assert burst["best"] == ids["B_0.jpg"] and burst["set"] == ""
    assert [i["set"] for i in burst["images"]] == ["", "", in_set]
    assert main(["--profile", str(profile_path), "bursts"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("burst ") and "set" not in lines[0]
    assert lines[1].startswith("  * ") and lines[1].endswith("B_0.jpg  (best)")
    assert lines[3].endswith(f"B_2.jpg  [{in_set}]")
