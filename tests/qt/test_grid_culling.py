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


def test_why_of_a_burst_tile_says_what_the_other_frames_lack() -> None:
    # trial on held9: W on a burst's tile said "the technically best frame" but not why this one
    from aesthete_gui.qt.grid_rows import burst_others

    cover = ImageRow(1, "/s/1.jpg", burst_id=7)
    others = [
        ImageRow(2, "/s/2.jpg", burst_id=7, suggested_reject=True, check_notes=("✖ focus: soft",)),
        ImageRow(3, "/s/3.jpg", burst_id=7, suggested_reject=True, check_notes=("✖ motion blur: smeared",)),
        ImageRow(4, "/s/4.jpg", burst_id=7, eyes_closed=True),
        ImageRow(5, "/s/5.jpg", burst_id=7, check_notes=("⚠ noise: grainy",)),
        ImageRow(6, "/s/6.jpg", burst_id=7, flag="reject"),
        ImageRow(7, "/s/7.jpg", burst_id=7),
    ]
    assert burst_others(cover, others) == (
        "The other 6: 1 rejected by you, 2 suggested rejects, 1 with eyes closed, 1 with warnings, "
        "1 passing every check (ranked below this one by score). This frame passed every check."
    )
    warned = ImageRow(1, "/s/1.jpg", burst_id=7, check_notes=("⚠ noise: grainy",))
    assert burst_others(warned, others[:2]) == "The other 2: 2 suggested rejects."
    assert burst_others(cover, []) == ""
