"""What a photographer's trial found in the window, each on the real widgets: survey captions that
fit at 1280x800, a loupe fit that never enlarges a small frame, one line per technical check, a
status bar that says what a key marks, and a set listed in capture / name order."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt

from aesthete_gui.qt.culling_actions import selection_note
from aesthete_gui.qt.main_window import MainWindow
from aesthete_gui.qt.widgets.check_rows import CheckRows, check_line
from aesthete_gui.qt.widgets.frame_caption import elide_name, name_tail
from tests.qt.conftest import imported_main_window, select_rows, write_test_images

LONG_NAME = "20260614_Canon-EOS-R6_{:04d}.JPG"


@pytest.fixture
def window(qtbot, app_context, tmp_path):
    """The main window at 1280x800 over eight 320x240 frames named as a camera-body template names them."""
    folder = tmp_path / "card"
    for index, path in enumerate(write_test_images(folder, 8, size=(320, 240)), start=1):
        path.rename(folder / LONG_NAME.format(index))
    main = imported_main_window(qtbot, app_context, folder, 8, size=(1280, 800))
    yield main
    main.marks.close()


def _select(window: MainWindow, rows: list[int]) -> list[int]:
    return select_rows(window, rows, current=-1)


def test_a_long_name_keeps_its_number_and_extension() -> None:
    name = LONG_NAME.format(5)
    assert name_tail(name) == "0005.JPG" and name_tail("IMG_0128_web.JPG") == "0128_web.JPG"
    assert name_tail("README") == "" and name_tail("scan.tif") == ".tif"
    assert elide_name(name, 40, len) == name
    short = elide_name(name, 16, len)
    assert len(short) <= 16 and short.startswith("2026") and short.endswith("…0005.JPG")
    assert elide_name(name, 6, len) == "…5.JPG"  # narrower than the tail: its end still shows


@pytest.mark.parametrize("frames", [2, 8])
def test_survey_captions_fit_with_marks_whole_at_1280x800(qtbot, window, frames) -> None:
    ids = _select(window, list(range(frames)))
    window.show_view("survey")
    survey = window.survey
    survey.set_active(0)
    qtbot.keyClick(survey, Qt.Key.Key_P)
    qtbot.keyClick(survey, Qt.Key.Key_2)
    window.marks.wait_written()
    qtbot.waitUntil(lambda: "Pick" in survey.cells[0].caption.text())
    qtbot.wait(50)  # the layout settles
    width = survey.contentsRect().width()
    for cell, image_id in zip(survey.cells, ids, strict=False):
        caption = cell.caption
        assert cell.geometry().right() <= width  # no frame pushed past the view's edge
        assert caption.geometry().right() <= cell.contentsRect().right() + 1 and caption.x() >= 0
        name = window.model.row_for(image_id).name
        assert caption.shown_text().split(" · ")[0].endswith(name_tail(name))
        marks = caption.marks_label
        assert marks.width() >= marks.sizeHint().width()  # the stars and the flag are never cut
        assert marks.geometry().right() <= caption.width()
    assert "★★" in survey.cells[0].caption.shown_text() and "Pick" in survey.cells[0].caption.shown_text()


def test_loupe_fit_shows_a_small_frame_at_100_percent_not_enlarged(qtbot, window) -> None:
    window.open_in_loupe(window.model.row_at(0).image_id)
    view = window.loupe.view
    qtbot.waitUntil(view.has_image, timeout=10_000)
    qtbot.waitUntil(lambda: view.actual_zoom() == pytest.approx(1.0), timeout=10_000)
    qtbot.waitUntil(lambda: window.loupe.zoom_label.text().startswith("100%"), timeout=10_000)  # set on the next zoom signal
    view.enlarge_small = True  # the old behaviour, kept for a caller that wants it
    view.fit()
    assert view.actual_zoom() > 1.5


def test_each_check_is_one_line_with_its_number_and_unfolds_its_reason(qtbot) -> None:
    reason = "even the sharpest part of the frame is soft (edge spread 3.04; crisp ≈ 2, soft from 2.7)"
    stored = [
        {"name": "focus", "value": 3.0424, "verdict": "warn", "reason": reason, "measures": {}},
        {"name": "motion_blur", "value": 4.1, "verdict": "ok", "reason": "no motion blur on the subject; the background is streaked along one direction (edges 11.3 px wide), as in panning", "measures": {}},
        {"name": "motion_blur", "value": 5.8, "verdict": "reject", "reason": "motion blur: the subject's edges are smeared 5.8 px across the motion and 3.1 px along it", "measures": {}},
        {"name": "noise", "value": 21.3, "verdict": "reject", "reason": "heavy noise (σ 21.3 …)", "measures": {"chroma": 23.9}},
        {"name": "overexposure", "value": 0.0, "verdict": "ok", "reason": "midtones at 62 %, 0 % of the frame blown", "measures": {"median": 0.62}},
        {"name": "copy", "value": float("nan"), "verdict": "warn", "reason": "a resized copy of IMG_0128.JPG", "measures": {}},
        {"name": "overexposure", "value": 0.37, "verdict": "reject", "reason": "over-exposed: 44 % of the frame blown to white or to a clipped colour",
         "measures": {"median": 0.93, "colour": 0.44}},  # trial on held7: the line said 37 % beside this reason
    ]
    lines = [check_line(c) for c in stored]
    assert [line.summary for line in lines] == [
        "edge 3.04 px", "none (panning)", "smear 5.8 px", "σ 21.3 · colour 23.9", "0 % blown · mid 62 %", "a resized copy of IMG_0128.JPG",
        "44 % blown",
    ]
    assert lines[0].text == "⚠ " + reason and lines[2].text.startswith("✖ ") and lines[1].text.startswith("no motion")
    rows = CheckRows()
    qtbot.addWidget(rows)
    rows.resize(260, 400)
    rows.set_lines(lines)
    rows.show()
    qtbot.waitExposed(rows)
    assert all(not reason_label.isVisible() for reason_label in rows.reasons)  # folded: one line each
    height = rows.fontMetrics().height()
    first_title = rows.layout().itemAtPosition(0, 0).widget()
    summary = rows.layout().itemAtPosition(0, 1).widget()
    assert first_title.height() < 2 * height and summary.toolTip() == lines[0].text
    qtbot.mouseClick(summary, Qt.MouseButton.LeftButton, pos=QPoint(2, 2))
    assert rows.reasons[0].isVisible() and rows.reasons[0].text() == lines[0].text
    qtbot.mouseClick(summary, Qt.MouseButton.LeftButton, pos=QPoint(2, 2))
    assert not rows.reasons[0].isVisible()


def test_status_bar_says_what_a_key_marks() -> None:
    assert selection_note(4, 4) == "4 selected"
    assert selection_note(8, 1, target="the outlined frame") == "8 selected (keys mark the outlined frame)"
    assert selection_note(8, 8, 8) == "8 selected (8 burst covers; marks go to the shown frames)"
    assert selection_note(1, 1, 1) == "1 selected (1 burst cover; marks go to the shown frame)"
    assert selection_note(8, 1, 1) == "8 selected (keys mark the 1 shown: a burst cover)"
    assert selection_note(3, 2, 0) == "3 selected (keys mark the 2 shown)"
    assert selection_note(2, 9, 2, all_frames=True) == "2 selected (2 bursts; marks go to all 9 frames)"


def test_after_survey_the_status_bar_names_the_one_frame_a_key_marks(qtbot, window) -> None:
    _select(window, [0, 1, 2, 3])
    assert window.count_label.text().endswith("4 selected")
    window.show_view("survey")
    assert "4 selected (keys mark the outlined frame)" in window.count_label.text()
    window.show_view("grid")
    assert "4 selected" in window.count_label.text() and "keys mark" not in window.count_label.text()


def test_the_set_is_listed_by_capture_time_then_name_whatever_the_order_given(qtbot, window, tmp_path: Path) -> None:
    ids = [window.model.row_at(r).image_id for r in range(4)]
    catalog = window.context.profile.catalog
    records = [catalog.image_by_id(i) for i in ids]
    expected = [r.id for r in sorted(records, key=lambda r: (r.capture_time or "", Path(r.path).name.casefold()))]
    assert window.set_view.set_images(list(reversed(ids)))
    assert window.set_view.image_ids() == expected
    assert window.set_view.set_images([ids[2], ids[0], ids[3], ids[1]])  # the current image last
    assert window.set_view.image_ids() == expected


@pytest.mark.parametrize("size", [(1280, 800), (960, 720)])
def test_set_cards_of_eight_long_names_keep_each_frame_number(qtbot, window, size) -> None:
    ids = [window.model.row_at(r).image_id for r in range(8)]
    window.resize(*size)
    window.show_view("set")
    assert window.set_view.set_images(ids)
    qtbot.wait(50)
    for card in window.set_view._cards:
        shown = card.name_label.text()
        assert shown.endswith(name_tail(card._name)), (shown, card._name)


def test_the_inspector_s_smear_is_the_number_the_reason_gives() -> None:
    line = check_line({"name": "motion_blur", "value": 12.3, "verdict": "reject",
                       "reason": "motion blur: the edges are smeared 3.8 px across the motion and 2.1 px along it",
                       "measures": {"across": 3.8, "along": 2.1}})  # fmt: skip
    assert line.summary == "smear 3.8 px"


def test_a_why_popup_is_rich_text_so_qt_wraps_it_beside_the_cell() -> None:
    # a plain-text popup as wide as its longest reason line sat at the window's left edge
    from aesthete_gui.qt.widgets.frame_caption import wrapped_tip

    assert wrapped_tip("IMG_1 <b>: soft\nnoise σ 28") == "<qt>IMG_1 &lt;b&gt;: soft<br>noise σ 28</qt>"


def test_the_library_panel_counts_the_unreadable_files_apart(qtbot, app_context, tmp_path) -> None:
    """The import says "3 imported, 1 unreadable"; the library panel said only "All photographs (4)"."""
    folder = tmp_path / "card"
    write_test_images(folder, 3)
    (folder / "broken.jpg").write_bytes(b"\xff\xd8\xff\xe0 not a whole JPEG")
    main = imported_main_window(qtbot, app_context, folder, 4)
    library = main.library.tree.topLevelItem(1)
    assert library is not None and library.child(0).text(0) == "All photographs  (4)"  # the grid's tiles
    assert library.child(1).text(0) == "Unreadable  (1)" and "broken.jpg" in library.child(1).toolTip(0)
    assert library.child(2).text(0).startswith("card  (")
    # clicking it shows those files alone (it did nothing); "All photographs" shows every file again
    main.library._clicked(library.child(1))
    qtbot.waitUntil(lambda: main.model.rowCount() == 1, timeout=10_000)
    assert main.current_view == "grid" and main.model.row_at(0).name == "broken.jpg"
    main.library._clicked(library.child(0))
    qtbot.waitUntil(lambda: main.model.rowCount() == 4, timeout=10_000)
    # scoped to it again, then the file is mended and imported again: the scope goes with the list
    # (an attack's grid showed 0 of 4 with nothing saying why); a saved filter never keeps it
    main.library._clicked(library.child(1))
    qtbot.waitUntil(lambda: main.model.rowCount() == 1, timeout=10_000)
    assert main.filter_bar.state.unreadable and main.filter_to_save()["unreadable"] is False
    (mended,) = write_test_images(tmp_path / "mended", 1)
    mended.replace(folder / "broken.jpg")
    handle = main.import_folders([folder])
    qtbot.waitUntil(lambda: handle.done, timeout=60_000)
    qtbot.waitUntil(lambda: main.model.rowCount() == 4 and not main.filter_bar.state.unreadable, timeout=10_000)
    main.marks.close()


def test_the_survey_says_which_frames_the_checks_suggest_rejecting(qtbot, window) -> None:
    """The grid marks a suggested reject with an amber "?"; the survey, where frames are compared
    side by side, showed only the user's own marks (trial on held6)."""
    from dataclasses import replace

    rows = window.model.all_rows()
    window.model.set_rows([replace(r, suggested_reject=n == 1, eyes_closed=n == 2) for n, r in enumerate(rows)])
    qtbot.waitUntil(lambda: not window.model.loading, timeout=10_000)
    _select(window, [0, 1, 2])
    window.show_view("survey")
    captions = [cell.caption.text() for cell in window.survey.cells[:3]]
    assert "suggested reject" not in captions[0] and "? suggested reject" in captions[1]
    assert "eyes closed" in captions[2] and "eyes closed" not in captions[1]
    window.survey.set_active(1)
    qtbot.keyClick(window.survey, Qt.Key.Key_X)  # rejecting it: the user's mark replaces the suggestion
    window.marks.wait_written()
    qtbot.waitUntil(lambda: "Rejected" in window.survey.cells[1].caption.text())
    assert "suggested" not in window.survey.cells[1].caption.text()


def test_a_burst_of_an_original_and_its_copy_is_named_by_the_original() -> None:
    # trial on held7: "IMG_0050–0050_small" and "IMG_0148–0148_web"
    from aesthete_gui.qt.widgets.library_panel import burst_name

    assert burst_name(["IMG_0050.JPG", "IMG_0050_small.JPG"]) == "IMG_0050"
    assert burst_name(["IMG_0003.JPG", "IMG_0004.JPG", "IMG_0007.JPG"]) == "IMG_0003–0007"
    assert burst_name(["astronaut_1.jpg", "astronaut_4.jpg"]) == "astronaut_1–4"
    assert burst_name(["a.jpg", "b.jpg"]) == "a–b"
    assert burst_name(["IMG_001.jpg", "IMG_0010.jpg"]) == "IMG_001–0010"  # a longer number, not a copy


def test_the_library_panel_says_which_bursts_are_sets(qtbot, window) -> None:
    """A bracket was listed as a plain burst: nothing said its frames are kept together (held7 trial)."""
    from dataclasses import replace

    rows = window.model.all_rows()
    window.model.set_rows([replace(r, burst_id=7 if n < 3 else 8 if n < 5 else None,
                                   set_kind="exposure bracket" if n < 3 else "")
                           for n, r in enumerate(rows)])  # fmt: skip
    qtbot.waitUntil(lambda: not window.model.loading, timeout=10_000)
    window.library.refresh()
    bursts = window.library.tree.topLevelItem(2)
    assert bursts is not None and bursts.text(0) == "Bursts  (2)"
    bracket, plain = bursts.child(0), bursts.child(1)
    assert bracket.text(0).startswith("± ") and bracket.text(0).endswith("(3)")
    assert "exposure bracket: kept as a set" in bracket.toolTip(0)
    assert plain.text(0).startswith("2026") and "exposure bracket" not in plain.toolTip(0)


def test_a_set_kind_is_read_from_the_stored_sequence_check() -> None:
    from aesthete_gui.qt.grid_rows import set_kind

    reason = "kept with its set (exposure bracket of 3 frames (-2, 0, +2 EV)): never a suggested reject"
    assert set_kind([{"name": "focus", "verdict": "ok"}, {"name": "sequence", "reason": reason}]) == "exposure bracket"
    assert set_kind([{"name": "sequence", "reason": "kept with its set (panorama of 4 frames)"}]) == "panorama"
    assert set_kind([{"name": "sequence", "reason": "something new"}]) == "set"
    assert set_kind([{"name": "focus", "verdict": "ok"}]) == ""


def test_the_highlights_line_gives_the_share_its_reason_gives() -> None:
    """A +2 EV frame warned for 85 % clipped in smooth areas read "⚠ Blown highlights 0 % clipped" (held8 trial)."""
    smooth = check_line({"name": "highlights", "value": 0.0, "verdict": "warn", "measures": {"smooth": 0.85, "frame": 0.86},
                         "reason": "clipped on 85 % of the frame in smooth areas (sky or backdrop, or a plain bright surface burnt out)"})  # fmt: skip
    assert smooth.summary == "85 % clipped (smooth)"
    detail = check_line({"name": "highlights", "value": 0.12, "verdict": "reject", "measures": {"smooth": 0.3},
                         "reason": "highlights with detail clipped on 12 % of the frame"})  # fmt: skip
    assert detail.summary == "12 % clipped"


def test_a_set_found_by_the_checks_after_loading_shows_in_the_library_panel_at_once(qtbot, window) -> None:
    """A trial: the bracket's ± appeared only after scoring, not when the import's checks found it."""
    rows = window.model.all_rows()
    from dataclasses import replace

    window.model.set_rows([replace(r, burst_id=5 if n < 3 else None) for n, r in enumerate(rows)])
    qtbot.waitUntil(lambda: not window.model.loading, timeout=10_000)
    window.library.refresh()
    bursts = window.library.tree.topLevelItem(2)
    assert bursts is not None and not bursts.child(0).text(0).startswith("±")
    state = (False, False, (), True, (), "exposure bracket")
    window.model.update_checks({r.image_id: state for r in rows[:3]})
    bursts = window.library.tree.topLevelItem(2)
    assert bursts is not None and bursts.child(0).text(0).startswith("± ")
