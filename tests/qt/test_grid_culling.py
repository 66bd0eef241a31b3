"""Grid rows know suggested rejects (filterable) and collapse a burst to its technically best frame."""

from __future__ import annotations

from pathlib import Path

from aesthete_gui.qt.grid_rows import FilterState, ImageRow, arrange, best_of_burst, load_rows
from aesthete_gui.services.library_checks import checks_version
from aesthete_gui.store import ImageUpdate, open_profile

SOFT = {"name": "focus", "value": 0.5, "verdict": "reject", "reason": "even the sharpest part of the frame is soft"}
SHARP = {"name": "focus", "value": 3.5, "verdict": "ok", "reason": "subject sharp (3.50)"}


def test_rows_carry_suggestions_and_the_burst_shows_its_sharp_frame(tmp_path: Path) -> None:
    profile = open_profile(tmp_path / "p.db")
    try:
        ids = profile.catalog.write_images([ImageUpdate(path=str(tmp_path / f"{n}.jpg"), folder_id=None, status="ok") for n in ("soft", "sharp", "picked")])
        soft, sharp, picked = ids
        burst = profile.catalog.set_burst([soft, sharp])
        profile.checks.put_many([(soft, checks_version(), [SOFT], [], "reject"), (sharp, checks_version(), [SHARP], [], "ok"),
                                 (picked, checks_version(), [SOFT], [], "reject")])  # fmt: skip
        profile.marks.set(picked, flag="pick")
        profile.scores.put_many("builtin", [(soft, {"overall": 4.8}), (sharp, {"overall": 3.1})])
        rows = {r.image_id: r for r in load_rows(profile, "builtin")}
    finally:
        profile.close()
    assert rows[soft].suggested_reject and not rows[sharp].suggested_reject
    assert not rows[picked].suggested_reject  # the user's flag wins
    suggested, _ = arrange(rows.values(), FilterState(flag="suggested"), "name")
    assert [r.image_id for r in suggested] == [soft]
    assert best_of_burst([rows[soft], rows[sharp]]).image_id == sharp
    collapsed, sizes = arrange(rows.values(), FilterState(collapse_bursts=True), "overall")
    assert sharp in [r.image_id for r in collapsed] and soft not in [r.image_id for r in collapsed]
    assert sizes == {burst: 2}


def test_rows_without_checks_fall_back_to_the_score() -> None:
    a = ImageRow(1, "a.jpg", burst_id=1, scores={"overall": 2.0})
    b = ImageRow(2, "b.jpg", burst_id=1, scores={"overall": 4.0})
    assert best_of_burst([a, b]).image_id == 2
