"""The grid's rows at library scale: the lean load gives the rows the full records give, and the
fast filter and sort keep the order sort_value defines (missing values last, either direction)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from aesthete_gui.engine.dimensions import DIMENSIONS
from aesthete_gui.imaging.best_frame import stored_culling_rank
from aesthete_gui.qt.grid_rows import (
    SORT_KEYS,
    FilterState,
    ImageRow,
    ScoreValues,
    arrange,
    load_rows,
    sort_value,
)
from aesthete_gui.services.library_checks import checks_version
from aesthete_gui.store import ImageUpdate, open_profile


def _reference(rows: list[ImageRow], state: FilterState, key: str, descending: bool) -> list[int]:
    """The plain definition: filter row by row, sort by sort_value, flip the present ones."""
    kept = sorted((r for r in rows if state.accepts(r)), key=lambda r: sort_value(r, key))
    if descending:
        kept = [r for r in kept if not sort_value(r, key)[0]][::-1] + [r for r in kept if sort_value(r, key)[0]]
    return [r.image_id for r in kept]


def _rows(count: int) -> list[ImageRow]:
    rng = np.random.default_rng(2)
    rows = []
    for i in range(count):
        values = tuple(None if rng.random() < 0.2 else float(rng.integers(1, 6)) for _ in DIMENSIONS)  # ties on purpose
        rows.append(ImageRow(i, f"/shoot/IMG_{int(rng.integers(0, 50)):04d}_{i}.jpg",
                             None if rng.random() < 0.3 else f"2026-01-01T10:00:{int(rng.integers(0, 60)):02d}",
                             stars=int(rng.integers(0, 6)), flag=[None, "pick", "reject"][i % 3],
                             scores=ScoreValues(values), personal=None if i % 4 else float(rng.random())))  # fmt: skip
    return rows


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("key", SORT_KEYS)
def test_fast_sorting_keeps_the_defined_order(key: str, descending: bool) -> None:
    rows = _rows(400)
    for state in (FilterState(), FilterState(flag="pick"), FilterState(min_stars=2, text="img_00")):
        got = [r.image_id for r in arrange(rows, state, key, descending)[0]]
        assert got == _reference(rows, state, key, descending)


def test_score_values_read_like_a_dict() -> None:
    values = ScoreValues((1.5, None, 3.0, None, 4.25))
    as_dict = dict(zip(DIMENSIONS, (1.5, None, 3.0, None, 4.25), strict=True))
    as_dict = {k: v for k, v in as_dict.items() if v is not None}
    assert dict(values) == as_dict and values == as_dict and len(values) == 3
    assert values.get("overall") == 4.25 and values.get(DIMENSIONS[1]) is None and values.get("nonsense", 7) == 7
    with pytest.raises(KeyError):
        values[DIMENSIONS[1]]


def test_the_lean_load_gives_what_the_full_records_give(tmp_path: Path) -> None:
    profile = open_profile(tmp_path / "p.db")
    try:
        ids = profile.catalog.write_images([ImageUpdate(path=str(tmp_path / f"{n}.jpg"), folder_id=None, status="ok",
                                                capture_time=f"2026-01-01T10:00:0{n}") for n in range(6)])  # fmt: skip
        version = checks_version()
        closed = [{"eyes": "closed"}]
        reject = [{"name": "focus", "verdict": "reject"}]
        profile.checks.put_many([(ids[0], version, reject, closed, "reject"), (ids[1], version, [], [{"eyes": "open"}], "ok"),
                                 (ids[2], "older", reject, closed, "reject"), (ids[3], version, reject, [], "reject")])  # fmt: skip
        profile.catalog.set_burst(ids[:3], edited=False)
        profile.marks.set(ids[3], stars=2, flag="pick")
        profile.scores.put_many("builtin", [(ids[0], {"overall": 3.5, "mood": 2.0})])
        rows = {r.image_id: r for r in load_rows(profile, "builtin")}
        assert [rows[i].checked for i in ids] == [True, True, False, True, False, False]
        assert [rows[i].eyes_closed for i in ids] == [True, False, False, False, False, False]
        assert [rows[i].suggested_reject for i in ids] == [True, False, False, False, False, False]  # 3 is flagged
        assert rows[ids[0]].culling_rank == stored_culling_rank(reject, closed)
        assert rows[ids[1]].culling_rank == stored_culling_rank([], [{"eyes": "open"}]) and rows[ids[2]].culling_rank == ()
        assert dict(rows[ids[0]].scores) == {"overall": 3.5, "mood": 2.0} and dict(rows[ids[1]].scores) == {}
        assert (rows[ids[3]].stars, rows[ids[3]].flag, rows[ids[3]].name) == (2, "pick", "3.jpg")
        assert [rows[i].burst_id is not None for i in ids] == [True, True, True, False, False, False]
    finally:
        profile.close()


def test_a_reason_that_starts_with_its_check_is_not_named_twice() -> None:
    from aesthete_gui.qt.grid_rows import check_notes

    notes = check_notes([
        {"name": "motion_blur", "verdict": "reject", "reason": "motion blur: the edges are smeared 5.3 px"},
        {"name": "focus", "verdict": "warn", "reason": "slightly soft: edge spread 3.1"},
    ])
    assert notes == ("✖ motion blur: the edges are smeared 5.3 px", "⚠ focus: slightly soft: edge spread 3.1")
