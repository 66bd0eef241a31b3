"""Keep the best of each burst treats a RAW+JPEG pair as one frame: never one half kept and the other rejected."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from PIL import Image
from PySide6.QtCore import Qt

from aesthete_gui.qt.culling_actions import rest_of_bursts, thin_bursts
from aesthete_gui.qt.item_models import ImageRow
from aesthete_gui.store import ImageUpdate
from tests.qt.conftest import settle_profile_events, shown_main_window

NAMES = ["IMG_1.JPG", "IMG_2.JPG", "IMG_2.DNG", "IMG_3.JPG"]


@pytest.fixture
def pair_burst(qtbot, app_context, tmp_path: Path):
    """A burst of three exposures, the middle one a RAW+JPEG pair (real files: the pair is found on disk)."""
    for n, name in enumerate(NAMES):
        if name.endswith(".DNG"):
            (tmp_path / name).write_bytes(b"II*\x00" + bytes(range(256)) * 8)
        else:
            Image.new("RGB", (64, 48), (40 * n, 90, 120)).save(tmp_path / name)
    main = shown_main_window(qtbot, app_context, xmp=False)
    ids = app_context.profile.catalog.write_images(
        [ImageUpdate(path=str(tmp_path / name), folder_id=None, status="ok") for name in NAMES]
    )
    settle_profile_events(qtbot, main)
    yield main, dict(zip(NAMES, ids, strict=True)), tmp_path
    main.marks.close()


def _rows(ids: dict[str, int], folder: Path, overall: dict[str, float], burst: set[str] | None = None) -> list[ImageRow]:
    return [ImageRow(image_id=i, path=str(folder / name), burst_id=7 if burst is None or name in burst else None,
                     scores={"overall": overall[name]}) for name, i in ids.items()]  # fmt: skip


def test_a_pair_alone_is_no_burst_to_thin_and_a_best_raw_keeps_its_jpeg(pair_burst) -> None:
    _main, ids, folder = pair_burst
    alone = _rows(ids, folder, dict.fromkeys(NAMES, 3.0) | {"IMG_2.DNG": 4.0}, burst={"IMG_2.JPG", "IMG_2.DNG"})
    assert thin_bursts(alone) == [] and rest_of_bursts(alone, pairs_as_one=True) == []
    best_raw = _rows(ids, folder, {"IMG_1.JPG": 3.0, "IMG_2.JPG": 3.1, "IMG_2.DNG": 4.9, "IMG_3.JPG": 2.0})
    (burst,) = thin_bursts(best_raw)
    assert [r.name for r in burst.kept] == ["IMG_2.JPG"] and [r.name for r in burst.partners[ids["IMG_2.JPG"]]] == ["IMG_2.DNG"]
    assert rest_of_bursts(best_raw) == [ids["IMG_1.JPG"], ids["IMG_3.JPG"]]  # neither half of the best frame


def test_a_rejected_pair_loses_its_jpeg_only_unless_pairs_are_one(qtbot, pair_burst, app_context) -> None:
    main, ids, folder = pair_burst
    main.model.set_rows(_rows(ids, folder, {"IMG_1.JPG": 4.5, "IMG_2.JPG": 3.0, "IMG_2.DNG": 3.2, "IMG_3.JPG": 2.0}))
    qtbot.waitUntil(lambda: not main.model.loading, timeout=10_000)
    flags = lambda: {n: app_context.profile.marks.get(i).flag for n, i in ids.items()}  # noqa: E731

    dialog = main._keep_best_of_bursts()
    assert [(t.row.name, t.kept) for t in dialog.tiles] == [("IMG_1.JPG", True), ("IMG_2.JPG", False), ("IMG_3.JPG", False)]
    pair_tile = dialog.tiles[1]
    assert "IMG_2.DNG" in pair_tile.caption.toolTip() and [p.name for p in pair_tile.partners] == ["IMG_2.DNG"]
    assert "only IMG_2.JPG is rejected" in pair_tile.partner_note and "IMG_2.DNG" in pair_tile.partner_note
    assert "Reject 2 frames of 1 burst" in dialog.summary.text() and "only the JPEG shown is rejected" in dialog.summary.text()
    qtbot.mouseClick(dialog.reject_button, Qt.MouseButton.LeftButton)
    main.marks.wait_written()
    assert flags() == {"IMG_1.JPG": None, "IMG_2.JPG": "reject", "IMG_2.DNG": None, "IMG_3.JPG": "reject"}
    main.marks.undo_stack.undo()
    main.marks.wait_written()
    assert set(flags().values()) == {None}

    app_context.set_setting("raw_jpeg_pairs_as_one", True)
    dialog = main._keep_best_of_bursts()
    assert "is rejected with it (pairs are one)" in dialog.tiles[1].partner_note
    assert "rejected with it (pairs are one)" in dialog.summary.text()
    qtbot.mouseClick(dialog.reject_button, Qt.MouseButton.LeftButton)
    main.marks.wait_written()
    assert flags() == {"IMG_1.JPG": None, "IMG_2.JPG": "reject", "IMG_2.DNG": "reject", "IMG_3.JPG": "reject"}


def test_a_pair_whose_raw_the_user_starred_stays_whole(pair_burst) -> None:
    _main, ids, folder = pair_burst
    rows = _rows(ids, folder, {"IMG_1.JPG": 4.5, "IMG_2.JPG": 3.0, "IMG_2.DNG": 3.2, "IMG_3.JPG": 2.0})
    rows = [replace(r, stars=4) if r.name == "IMG_2.DNG" else r for r in rows]
    (burst,) = thin_bursts(rows, pairs_as_one=True)
    assert [r.name for r in burst.kept] == ["IMG_1.JPG", "IMG_2.JPG"] and burst.rejected_ids() == [ids["IMG_3.JPG"]]


def test_a_frame_kept_for_its_set_is_not_called_yours(qtbot, pair_burst) -> None:
    main, ids, folder = pair_burst
    rows = _rows(ids, folder, {"IMG_1.JPG": 4.5, "IMG_2.JPG": 3.0, "IMG_2.DNG": 3.2, "IMG_3.JPG": 2.0})
    rows = [replace(r, set_kind="panorama") if r.name == "IMG_3.JPG" else r for r in rows]  # a panorama frame, unmarked
    main.model.set_rows(rows)
    qtbot.waitUntil(lambda: not main.model.loading, timeout=10_000)
    dialog = main._keep_best_of_bursts()
    tile = next(t for t in dialog.tiles if t.row.name == "IMG_3.JPG")
    assert tile.kept and tile.caption.text().startswith("✔ set") and "kept with its set" in tile.caption.toolTip()
    assert "yours" not in tile.caption.text()


def test_a_pick_is_the_frame_a_burst_keeps(qtbot, pair_burst) -> None:
    """A trial picked IMG_0078 in a burst whose technically best frame was an over-exposed IMG_0080:
    "keep the best" kept both ("best" and "yours"). The pick is the best; the other frames go."""
    main, ids, folder = pair_burst
    rows = _rows(ids, folder, {"IMG_1.JPG": 4.5, "IMG_2.JPG": 3.0, "IMG_2.DNG": 3.2, "IMG_3.JPG": 2.0})
    rows = [replace(r, flag="pick") if r.name == "IMG_3.JPG" else r for r in rows]
    (burst,) = thin_bursts(rows)
    assert [r.name for r in burst.kept] == ["IMG_3.JPG"]
    assert sorted(r.name for r in burst.rejected) == ["IMG_1.JPG", "IMG_2.JPG"]
    main.model.set_rows(rows)
    qtbot.waitUntil(lambda: not main.model.loading, timeout=10_000)
    dialog = main._keep_best_of_bursts()
    tile = next(t for t in dialog.tiles if t.row.name == "IMG_3.JPG")
    assert tile.caption.text().startswith("✔ your pick") and "your pick" in tile.caption.toolTip()
    # the pick on the RAW half of a pair: the pair is the burst's frame, and its tile says so (an attack
    # read "✔ best" there)
    raw_pick = [replace(r, flag="pick") if r.name == "IMG_2.DNG" else r for r in _rows(ids, folder, {"IMG_1.JPG": 4.5, "IMG_2.JPG": 3.0, "IMG_2.DNG": 3.2, "IMG_3.JPG": 2.0})]
    main.model.set_rows(raw_pick)
    qtbot.waitUntil(lambda: not main.model.loading, timeout=10_000)
    dialog = main._keep_best_of_bursts()
    tile = next(t for t in dialog.tiles if t.row.name == "IMG_2.JPG")
    assert tile.kept and tile.caption.text().startswith("✔ your pick")
    # stars alone are no choice of the one frame: the technically best stays beside a starred frame
    starred = [replace(r, stars=3) if r.name == "IMG_3.JPG" else r for r in _rows(ids, folder, {"IMG_1.JPG": 4.5, "IMG_2.JPG": 3.0, "IMG_2.DNG": 3.2, "IMG_3.JPG": 2.0})]
    (burst,) = thin_bursts(starred)
    assert [r.name for r in burst.kept] == ["IMG_1.JPG", "IMG_3.JPG"]

def test_a_tile_keeps_the_frame_number_and_copy_suffix_of_a_long_name(qtbot) -> None:
    # a trial read "✔ best  I…4_small.JPG": the verdict took the line and the name lost its start
    from aesthete_gui.qt.dialogs.keep_best import FrameTile

    tile = FrameTile(ImageRow(image_id=1, path="/shoot/IMG_20231224_0044_small.JPG"), kept=True, best=True)
    qtbot.addWidget(tile)
    verdict, name = tile.caption.text().split("\n")
    assert verdict == "✔ best"
    assert name.endswith("0044_small.JPG")
    assert tile.caption.fontMetrics().horizontalAdvance(name) <= tile.caption.maximumWidth()


def test_the_summary_names_the_score_only_when_frames_were_scored(pair_burst) -> None:
    from aesthete_gui.qt.culling_actions import BurstToThin
    from aesthete_gui.qt.dialogs.keep_best import KeepBestDialog

    main, ids, folder = pair_burst
    plain = [ImageRow(image_id=i, path=str(folder / n), burst_id=7) for n, i in ids.items() if n.endswith(".JPG")]
    unscored = KeepBestDialog([BurstToThin(7, plain[:1], plain[1:])], main.context.thumbnails)
    assert "no clipping)" in unscored.summary.text() and "score" not in unscored.summary.text()
    scored_rows = [replace(r, scores={"overall": 3.0}) for r in plain]
    scored = KeepBestDialog([BurstToThin(7, scored_rows[:1], scored_rows[1:])], main.context.thumbnails)
    assert "no clipping, then the score)" in scored.summary.text()
    for dialog in (unscored, scored):
        dialog.close()
