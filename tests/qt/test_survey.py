"""Survey: the selection side by side at equal size, zoom synchronised, marks per frame with the keys."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPointF, Qt

from aesthete_gui.qt.main_window import MainWindow
from tests.qt.conftest import imported_main_window, select_rows


@pytest.fixture
def window(qtbot, app_context, image_folder):
    """The main window over twelve imported JPEGs."""
    main = imported_main_window(qtbot, app_context, image_folder, 12)
    yield main
    main.marks.close()


def _select(window: MainWindow, rows: list[int]) -> list[int]:
    return select_rows(window, rows)


def test_survey_marks_each_frame_with_the_usual_keys(qtbot, window) -> None:
    ids = _select(window, [2, 3, 4, 5])
    window.grid.setFocus()
    qtbot.keyClick(window.grid, Qt.Key.Key_N)
    survey = window.survey
    assert window.current_view == "survey"
    assert survey.image_ids == ids
    visible = [cell for cell in survey.cells if cell.isVisible()]
    assert len(visible) == 4
    qtbot.waitUntil(lambda: all(cell.view.has_image() for cell in visible), timeout=10_000)
    widths = [cell.width() for cell in visible]
    heights = [cell.height() for cell in visible]
    assert max(widths) - min(widths) <= 1 and max(heights) - min(heights) <= 1  # equal size (2 x 2)

    assert survey.active_id == window.context.selection.current()  # starts on the current image
    for _ in range(4):
        qtbot.keyClick(survey, Qt.Key.Key_Left)
    assert survey.active_id == ids[0]
    qtbot.keyClick(survey, Qt.Key.Key_3)
    qtbot.keyClick(survey, Qt.Key.Key_Right)
    assert survey.active_id == ids[1]
    assert window.context.selection.current() == ids[1]  # one current image for every view
    qtbot.keyClick(survey, Qt.Key.Key_X)
    qtbot.keyClick(survey, Qt.Key.Key_Right)
    qtbot.keyClick(survey, Qt.Key.Key_P)
    window.marks.wait_written()
    profile = window.context.profile
    qtbot.waitUntil(lambda: profile.marks.get(ids[2]).flag == "pick")
    assert profile.marks.get(ids[0]).stars == 3
    assert profile.marks.get(ids[1]).flag == "reject"
    assert profile.marks.get(ids[3]).stars == 0 and profile.marks.get(ids[3]).flag is None
    assert "Pick" in visible[2].caption.text() and "Rejected" in visible[1].caption.text()

    qtbot.keyClick(survey, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)  # the one undo history
    qtbot.waitUntil(lambda: window.model.row_for(ids[2]).flag is None)


def test_survey_zoom_and_pan_follow_the_active_frame(qtbot, window) -> None:
    ids = _select(window, [0, 1])
    window.show_view("survey")
    survey = window.survey
    first, second = survey.cells[0].view, survey.cells[1].view
    qtbot.waitUntil(lambda: first.has_image() and second.has_image(), timeout=10_000)
    first.zoom_by(4.0, QPointF(0.3, 0.4))  # what the wheel does in one frame
    assert first.zoom == 4.0 and second.zoom == pytest.approx(4.0)
    assert second.centre_fraction().x() == pytest.approx(first.centre_fraction().x(), abs=0.02)
    assert second.centre_fraction().y() == pytest.approx(first.centre_fraction().y(), abs=0.02)
    second.zoom_by(0.25)  # and back, from the other frame
    assert first.zoom == 1.0 and second.zoom == 1.0
    assert survey.image_ids == ids


def test_survey_without_a_selection_says_what_to_do(qtbot, window) -> None:
    _select(window, [0])
    window.show_view("survey")
    assert window.survey.image_ids == []
    assert window.survey.message.isVisible()


def test_more_than_eight_selected_says_how_many_are_left_out_and_keeps_only_the_shown_selected(qtbot, window) -> None:
    # trial on held7: ten frames selected, the survey showed eight (leaving out the 1st and 3rd, not
    # the last two) without a word, and back in the grid only eight were still selected
    ids = _select(window, list(range(10)))
    window.grid.setFocus()
    qtbot.keyClick(window.grid, Qt.Key.Key_N)
    survey = window.survey
    assert survey.image_ids == ids[:8]  # the first eight in the grid's order (the current one among them)
    assert survey.message.isVisible() and survey.message.text().startswith("8 of 10 frames shown")
    qtbot.keyClick(survey, Qt.Key.Key_Right)
    qtbot.keyClick(survey, Qt.Key.Key_Escape)
    assert window.current_view == "grid"
    # only frames the survey showed stay selected: a key in the grid must not mark the two never shown
    assert sorted(window.context.selection.image_ids()) == sorted(ids[:8])
    survey.set_frames(ids, active=ids[9])  # the current frame is the tenth: the eight ending at it
    assert survey.image_ids == ids[2:10] and survey.active_id == ids[9]
    _select(window, [0, 1, 2])
    window.show_view("survey")
    assert not survey.message.isVisible()


def test_surveying_a_long_burst_from_one_frame_leaves_one_frame_selected(qtbot, window) -> None:
    # attack on ddeb4dc: one frame of a 13-frame burst, N, Esc: the grid had 8 frames selected, and X
    # back in the grid rejected all 8
    from dataclasses import replace

    rows = window.model.all_rows()
    window.model.set_rows([replace(r, burst_id=5 if n < 10 else None) for n, r in enumerate(rows)])
    qtbot.waitUntil(lambda: not window.model.loading, timeout=10_000)
    (one,) = _select(window, [1])
    window.grid.setFocus()
    qtbot.keyClick(window.grid, Qt.Key.Key_N)
    survey = window.survey
    assert len(survey.image_ids) == 8 and one in survey.image_ids
    assert survey.message.text().startswith("8 of this burst's 10 frames shown")
    qtbot.keyClick(survey, Qt.Key.Key_Right)
    outlined = survey.active_id
    qtbot.keyClick(survey, Qt.Key.Key_Escape)
    assert window.current_view == "grid" and window.context.selection.image_ids() == [outlined]
    window.grid.setFocus()
    qtbot.keyClick(window.grid, Qt.Key.Key_X)
    window.marks.wait_written()
    rejected = [i for i in window.model.visible_ids() if window.context.profile.marks.get(i).flag == "reject"]
    assert rejected == [outlined]


def _survey_at_100_percent(qtbot, main):  # type: ignore[no-untyped-def]
    """The survey of the two selected frames after Z, once both show their originals."""
    main.show_view("survey")
    survey = main.survey
    qtbot.waitUntil(lambda: all(c.view.has_image() for c in survey.cells[:2]), timeout=10_000)
    qtbot.keyClick(survey, Qt.Key.Key_Z)
    qtbot.waitUntil(lambda: all(c.full_shown for c in survey.cells[:2]), timeout=30_000)
    return survey


def test_zooming_in_the_survey_brings_the_originals(qtbot, app_context, tmp_path) -> None:
    from aesthete_gui.imaging.decode import decode_full_resolution
    from aesthete_gui.qt.full_resolution import qimage_to_array
    from tests.qt.test_loupe_full_resolution import write_detailed_jpegs

    app_context.settings["welcome_done"] = True
    main = MainWindow(app_context)
    qtbot.addWidget(main)
    main.show()
    write_detailed_jpegs(tmp_path / "big", 2)
    handle = main.import_folders([tmp_path / "big"])
    qtbot.waitUntil(lambda: handle.done, timeout=60_000)
    qtbot.waitUntil(lambda: not main.model.loading and main.model.rowCount() == 2, timeout=10_000)
    _select(main, [0, 1])
    survey = _survey_at_100_percent(qtbot, main)
    for cell in survey.cells[:2]:
        original = np.asarray(decode_full_resolution(cell.path).image.convert("RGB"))
        assert np.array_equal(qimage_to_array(cell.view.image()), original)
    assert survey.cells[0].view.actual_zoom() == pytest.approx(1.0, abs=0.01)
    main.loupe.full_resolution.wait_idle()
    main.marks.close()


def test_the_set_view_refuses_more_than_eight_and_keeps_the_current_frame_of_a_long_burst(qtbot, window) -> None:
    # attack on ddeb4dc: ten selected, Ctrl+4 took the first eight without a word (the current frame
    # among those left out); from one frame of a long burst, the set left that frame out
    from dataclasses import replace

    _select(window, [0, 1, 2])
    window.show_view("set")
    assert len(window.set_view.image_ids()) == 3
    window.show_view("grid")
    _select(window, list(range(10)))
    window.show_view("set")
    assert window.set_view.image_ids() == []  # the earlier set of three is put away, not judged on
    assert window.set_view.status_label.text() == "A set needs 2 to 8 images; 10 selected: select fewer."
    assert window.set_view.source_label.text().startswith("No set")
    _select(window, [0, 1, 2])
    window.show_view("set")
    window.show_view("grid")
    _select(window, [11])  # one frame in no burst: no set, and the last one is put away
    window.show_view("set")
    assert window.set_view.image_ids() == [] and window.set_view.source_label.text().startswith("No set")
    rows = window.model.all_rows()
    window.model.set_rows([replace(r, burst_id=5 if n < 10 else None) for n, r in enumerate(rows)])
    qtbot.waitUntil(lambda: not window.model.loading, timeout=10_000)
    (last,) = _select(window, [9])
    window.show_view("set")
    shown = window.set_view.image_ids()
    assert len(shown) == 8 and last in shown
    assert "8 of this burst's 10 frames" in window.set_view.source_label.text()


def test_a_survey_opened_from_one_frame_shows_only_the_burst_frames_the_filter_lets_through(qtbot, window) -> None:
    # second attack on 77bf4c2: with rejects hidden, the survey of a burst brought the hidden rejects
    # back, one of them outlined, while a key in the grid then marked another frame
    from dataclasses import replace

    from aesthete_gui.qt.grid_rows import FilterState

    rows = window.model.all_rows()
    window.model.set_rows([replace(r, burst_id=5 if n < 10 else None, flag="reject" if n in (1, 2, 3, 6) else None)
                           for n, r in enumerate(rows)])  # fmt: skip
    window.model.set_filter(FilterState(flag="not_reject"))
    qtbot.waitUntil(lambda: not window.model.loading and window.model.rowCount() == 8, timeout=10_000)
    hidden = {rows[n].image_id for n in (1, 2, 3, 6)}
    _select(window, [0])
    window.show_view("survey")
    shown = window.survey.image_ids
    assert len(shown) == 6 and not hidden & set(shown)


def test_arrows_past_the_edge_slide_a_long_burst_along_so_every_frame_can_be_reached(qtbot, window) -> None:
    # trial on held8: a 10-frame burst surveyed from one frame showed eight, and the last two could
    # never be seen or marked there
    from dataclasses import replace

    rows = window.model.all_rows()
    window.model.set_rows([replace(r, burst_id=5 if n < 10 else None) for n, r in enumerate(rows)])
    qtbot.waitUntil(lambda: not window.model.loading, timeout=10_000)
    _select(window, [0])
    window.grid.setFocus()
    qtbot.keyClick(window.grid, Qt.Key.Key_N)
    survey = window.survey
    burst = list(survey._all)
    assert len(burst) == 10 and survey.image_ids == burst[:8]
    assert "(frames 1–8;" in survey.message.text()
    for _ in range(9):
        qtbot.keyClick(survey, Qt.Key.Key_Right)
    assert survey.active_id == burst[9] and survey.image_ids == burst[2:10]
    assert "(frames 3–10;" in survey.message.text()
    qtbot.keyClick(survey, Qt.Key.Key_X)  # the tenth frame, never shown before, is marked
    window.marks.wait_written()
    qtbot.waitUntil(lambda: window.context.profile.marks.get(burst[9]).flag == "reject")
    qtbot.keyClick(survey, Qt.Key.Key_Right)  # the last frame: nothing further
    assert survey.active_id == burst[9]
    for _ in range(9):
        qtbot.keyClick(survey, Qt.Key.Key_Left)
    assert survey.active_id == burst[0] and survey.image_ids == burst[:8]
    assert window.context.selection.image_ids() == [burst[0]]  # a burst from one frame: the outlined one alone


def test_a_pick_in_the_survey_that_rearranges_the_grid_leaves_the_outlined_frame_current(qtbot, window) -> None:
    # held10 trial: with bursts collapsed, ← P → X in the survey: the outline and "Rejected" were on
    # the next frame while the inspector (and the shared current frame) went back to the picked one
    cover = _survey_a_collapsed_burst(qtbot, window)
    survey = window.survey
    at = survey.image_ids.index(cover)
    step = 1 if at + 1 < len(survey.image_ids) else -1
    picked = survey.image_ids[at + step]
    survey.set_active(at + step)
    qtbot.keyClick(survey, Qt.Key.Key_P)  # a pick on a hidden frame: it becomes the burst's tile
    qtbot.keyClick(survey, Qt.Key.Key_Left if step == 1 else Qt.Key.Key_Right)  # back to the old cover, now hidden
    outlined = survey.active_id
    assert outlined == cover
    window.marks.wait_written()
    qtbot.wait(1500)  # the grid re-arranges behind the survey (a second after the pick)
    qtbot.waitUntil(lambda: not window.model.loading, timeout=10_000)
    assert window.context.selection.current() == outlined
    qtbot.waitUntil(lambda: window.inspector.image_id == outlined, timeout=5_000)
    qtbot.keyClick(survey, Qt.Key.Key_X)
    window.marks.wait_written()
    assert window.context.profile.marks.get(outlined).flag == "reject"
    assert window.context.profile.marks.get(picked).flag == "pick"


def test_back_from_the_survey_the_inspector_shows_the_frame_the_keys_mark(qtbot, window) -> None:
    # held12/13 trial: bursts collapsed, N on a burst, → to another frame, Esc: the inspector still
    # described that frame while 3 put three stars on the burst's cover
    cover = _survey_a_collapsed_burst(qtbot, window)
    survey = window.survey
    at = survey.image_ids.index(cover)
    survey.set_active(at + 1 if at + 1 < len(survey.image_ids) else at - 1)
    other = survey.active_id
    qtbot.waitUntil(lambda: window.inspector.image_id == other, timeout=5_000)
    qtbot.keyClick(survey, Qt.Key.Key_Escape)
    assert window.current_view == "grid"
    window.grid.setFocus()
    qtbot.keyClick(window.grid, Qt.Key.Key_3)
    window.marks.wait_written()
    (starred,) = [i for i in (cover, other) if window.context.profile.marks.get(i).stars == 3]
    qtbot.waitUntil(lambda: window.inspector.image_id == starred, timeout=5_000)


def _survey_a_collapsed_burst(qtbot, window) -> int:  # type: ignore[no-untyped-def]
    """The first four frames made one burst, bursts collapsed, N on its tile: the tile's frame (the cover)."""
    from dataclasses import replace

    from aesthete_gui.qt.grid_rows import FilterState

    rows = window.model.all_rows()
    window.model.set_rows([replace(r, burst_id=5 if n < 4 else None) for n, r in enumerate(rows)])
    qtbot.waitUntil(lambda: not window.model.loading, timeout=10_000)
    window.model.set_filter(FilterState(collapse_bursts=True))
    qtbot.waitUntil(lambda: not window.model.loading and window.model.burst_size(5) == 4, timeout=10_000)
    cover = next(r.image_id for r in window.model.all_rows() if r.burst_id == 5 and window.model.position_of(r.image_id) is not None)
    window.grid.select_image(cover)
    window.grid.setFocus()
    qtbot.keyClick(window.grid, Qt.Key.Key_N)
    return cover


def test_z_in_the_survey_shows_every_frame_at_100_percent_of_its_own_pixels_whatever_its_size(qtbot, app_context, tmp_path) -> None:
    # the frames followed the outlined one's scale relative to fit: a smaller frame beside it showed 133 %
    from tests.qt.test_loupe_full_resolution import write_named_jpegs

    write_named_jpegs(tmp_path / "mixed", {"IMG_0051.jpg": (1200, 1800), "IMG_0113.jpg": (900, 1350)})
    main = imported_main_window(qtbot, app_context, tmp_path / "mixed", 2, size=(1280, 800))
    _select(main, [0, 1])
    main.show_view("survey")
    survey = main.survey
    qtbot.waitUntil(lambda: all(c.view.has_image() for c in survey.cells[:2]), timeout=10_000)
    qtbot.keyClick(survey, Qt.Key.Key_Z)
    assert [c.view.actual_zoom() for c in survey.cells[:2]] == [pytest.approx(1.0)] * 2  # the previews, at once
    qtbot.waitUntil(lambda: all(c.full_shown for c in survey.cells[:2]), timeout=30_000)
    assert [c.view.actual_zoom() for c in survey.cells[:2]] == [pytest.approx(1.0)] * 2
    assert [c.view.transform().m11() for c in survey.cells[:2]] == [pytest.approx(1.0)] * 2
    qtbot.keyClick(survey, Qt.Key.Key_Right)
    qtbot.keyClick(survey, Qt.Key.Key_Z)  # and back to fit, from the other frame
    assert [c.view.zoom for c in survey.cells[:2]] == [1.0, 1.0]
    main.loupe.full_resolution.wait_idle()
    main.marks.close()


def write_chandelier_burst(folder, count: int = 2, size: tuple[int, int] = (1800, 1200)):
    """Frames of blank wall (flat grey) with the detail, the subject, in one place right of and above
    the middle: columns 5-6 and rows 2-3 of the checks' 8x8 tiles, centred at (0.75, 0.375)."""
    from PIL import Image

    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(3)
    width, height = size
    for index in range(count):
        rgb = np.full((height, width, 3), 128, dtype=np.uint8)
        x0, x1, y0, y1 = width * 5 // 8, width * 7 // 8, height * 2 // 8, height * 4 // 8
        rgb[y0:y1, x0:x1] = rng.integers(0, 256, (y1 - y0, x1 - x0, 1), dtype=np.uint8)
        Image.fromarray(rgb).save(folder / f"IMG_{200 + index:04d}.jpg", quality=92)


def test_z_in_the_survey_centres_100_percent_on_the_subject_the_checks_found(qtbot, app_context, tmp_path) -> None:
    # a burst of a chandelier: 100 % at the middle showed blank wall in every frame
    write_chandelier_burst(tmp_path / "chandelier")
    main = imported_main_window(qtbot, app_context, tmp_path / "chandelier", 2, size=(1280, 800))
    ids = _select(main, [0, 1])
    stored = {i: main.context.profile.checks.get(i) for i in ids}
    focus = [next(c for c in stored[i][0] if c["name"] == "focus")["measures"] for i in ids]
    assert [(m["x"], m["y"]) for m in focus] == [(pytest.approx(0.75), pytest.approx(0.375))] * 2
    survey = _survey_at_100_percent(qtbot, main)
    for cell in survey.cells[:2]:
        centre = cell.view.centre_fraction()
        assert cell.view.actual_zoom() == pytest.approx(1.0)
        assert (centre.x(), centre.y()) == (pytest.approx(0.75, abs=0.01), pytest.approx(0.375, abs=0.01))
    main.loupe.full_resolution.wait_idle()
    main.marks.close()


def test_a_100_percent_view_centres_on_the_stored_subject_or_else_the_middle() -> None:
    from aesthete_gui.qt.widgets.zoom_image_view import subject_centre

    focus = {"name": "focus", "value": 2.1, "verdict": "ok", "reason": "", "measures": {"x": 0.8, "y": 0.2, "spread": 2.1}}
    noise = {"name": "noise", "value": 3.0, "verdict": "ok", "reason": "", "measures": {"chroma": 1.0}}
    assert subject_centre(([noise, focus], [])) == (0.8, 0.2)
    assert subject_centre(None) is None  # never checked
    assert subject_centre(([noise], [])) is None  # no focus check
    assert subject_centre(([{**focus, "measures": {"spread": 2.1}}], [])) is None  # measured before x, y were kept
    assert subject_centre(([{**focus, "measures": {"x": float("nan"), "y": 0.2}}], [])) is None
    assert subject_centre(([{**focus, "measures": {"x": 1.4, "y": 0.2}}], [])) is None
