"""The loupe at 100 %: the preview first, then the original's own pixels, Z / click / Shift+Z zoom,
read-ahead, the byte budget, histogram and focus peaking."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from PySide6.QtCore import QPointF, Qt

from aesthete_gui.imaging.decode import decode_full_resolution
from aesthete_gui.qt.full_resolution import FullResolutionCache, qimage_to_array
from aesthete_gui.qt.main_window import MainWindow
from aesthete_gui.qt.task_runner import JobState


def write_detailed_jpegs(folder: Path, count: int, size: tuple[int, int] = (1800, 1200)) -> list[Path]:
    """JPEGs larger than the cached preview, with fine detail (noise over a gradient)."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(7)
    width, height = size
    paths = []
    for index in range(count):
        base = np.linspace(0, 200, width, dtype=np.float32)[None, :, None] + index * 10
        rgb = np.clip(base + rng.normal(0, 25, (height, width, 3)), 0, 255).astype(np.uint8)
        path = folder / f"detail_{index:02d}.jpg"
        Image.fromarray(rgb).save(path, quality=92)
        paths.append(path)
    return paths


@pytest.fixture
def window(qtbot, app_context, tmp_path):
    """The main window over a profile holding three 1800x1200 JPEGs, shown in the loupe."""
    app_context.settings["welcome_done"] = True
    main = MainWindow(app_context)
    qtbot.addWidget(main)
    main.resize(1280, 800)
    main.show()
    write_detailed_jpegs(tmp_path / "big", 3)
    handle = main.import_folders([tmp_path / "big"])
    qtbot.waitUntil(lambda: handle.done, timeout=60_000)
    assert handle.state is JobState.FINISHED, handle.error_text
    qtbot.waitUntil(lambda: not main.model.loading and main.model.rowCount() == 3, timeout=10_000)
    yield main
    main.loupe.full_resolution.wait_idle()
    main.marks.close()


def test_preview_first_then_the_originals_pixels_at_100_percent(qtbot, window) -> None:
    first = window.model.row_at(0)
    thumbnails = window.context.thumbnails
    thumbnails.request_preview(first.image_id)
    qtbot.waitUntil(lambda: thumbnails.request_preview(first.image_id) is not None, timeout=10_000)
    loupe = window.loupe
    with qtbot.waitSignal(loupe.full_resolution_shown, timeout=20_000):
        window.open_in_loupe(first.image_id)
        # the first frame shows the cached preview, not an empty view
        assert loupe.view.has_image() and not loupe.showing_full_resolution
        assert max(loupe.view.image().width(), loupe.view.image().height()) <= 1024
    shown = qimage_to_array(loupe.view.image())
    original = np.asarray(decode_full_resolution(first.path).image.convert("RGB"))
    assert shown.shape == original.shape == (1200, 1800, 3)
    assert np.array_equal(shown, original)

    qtbot.keyClick(loupe, Qt.Key.Key_Z)
    assert loupe.view.actual_zoom() == pytest.approx(1.0)
    assert loupe.view.transform().m11() == pytest.approx(1.0)  # one source pixel per screen pixel
    assert loupe.zoom_label.text() == "100%"
    qtbot.keyClick(loupe, Qt.Key.Key_Z)
    assert loupe.view.zoom == 1.0  # back to fit
    qtbot.keyClick(loupe, Qt.Key.Key_Z, Qt.KeyboardModifier.ShiftModifier)
    assert loupe.view.actual_zoom() == pytest.approx(2.0)


def test_a_click_zooms_to_100_percent_at_the_clicked_point(qtbot, window) -> None:
    loupe = window.loupe
    first = window.model.row_at(0)
    with qtbot.waitSignal(loupe.full_resolution_shown, timeout=20_000):
        window.open_in_loupe(first.image_id)
    loupe.toggle_actual_size(1.0, QPointF(0.3, 0.5))
    centre = loupe.view.centre_fraction()
    assert loupe.view.actual_zoom() == pytest.approx(1.0)
    assert centre.x() == pytest.approx(0.3, abs=0.01) and centre.y() == pytest.approx(0.5, abs=0.01)
    loupe.view.clicked.emit(QPointF(0.5, 0.5))  # what a click on the image sends
    assert loupe.view.zoom == 1.0


def test_the_next_frame_is_decoded_ahead_and_the_histogram_shown(qtbot, window) -> None:
    loupe = window.loupe
    rows = [window.model.row_at(i) for i in range(3)]
    with qtbot.waitSignal(loupe.full_resolution_shown, timeout=20_000):
        window.open_in_loupe(rows[0].image_id)
    qtbot.waitUntil(lambda: loupe.full_resolution.cached(rows[1].path) is not None, timeout=20_000)
    qtbot.waitUntil(lambda: loupe.histogram.histogram is not None, timeout=10_000)
    assert int(loupe.histogram.histogram.counts[0].sum()) == 1800 * 1200
    qtbot.keyClick(loupe, Qt.Key.Key_Right)
    assert loupe.image_id == rows[1].image_id and loupe.showing_full_resolution  # no wait at all


def test_focus_peaking_paints_an_overlay_and_toggles_off(qtbot, window) -> None:
    loupe = window.loupe
    with qtbot.waitSignal(loupe.full_resolution_shown, timeout=20_000):
        window.open_in_loupe(window.model.row_at(0).image_id)
    with qtbot.waitSignal(loupe.full_resolution.peaking_ready, timeout=20_000):
        qtbot.keyClick(loupe, Qt.Key.Key_E)
    assert loupe.peaking and loupe.view._overlay_item.isVisible()
    qtbot.keyClick(loupe, Qt.Key.Key_E)
    assert not loupe.view._overlay_item.isVisible()


def test_decoded_frames_stay_within_the_memory_budget(qtbot, tmp_path) -> None:
    paths = write_detailed_jpegs(tmp_path / "many", 4, size=(400, 300))
    one_frame = 400 * 300 * 4
    cache = FullResolutionCache(budget_bytes=2 * one_frame + 10)
    for path in paths:
        cache.request(str(path))
        cache.wait_idle()
        qtbot.waitUntil(lambda p=path: cache.cached(str(p)) is not None, timeout=10_000)
    assert cache.used_bytes <= 2 * one_frame + 10
    assert cache.cached_paths() == [str(paths[2]), str(paths[3])]  # least recently used went first


def test_a_file_the_import_could_not_read_says_why_instead_of_loading(qtbot, app_context, tmp_path) -> None:
    app_context.settings["welcome_done"] = True
    main = MainWindow(app_context)
    qtbot.addWidget(main)
    main.show()
    folder = tmp_path / "shoot"
    write_detailed_jpegs(folder, 1, size=(300, 200))
    (folder / "broken.jpg").write_bytes((folder / "detail_00.jpg").read_bytes()[:400])
    handle = main.import_folders([folder])
    qtbot.waitUntil(lambda: handle.done, timeout=60_000)
    qtbot.waitUntil(lambda: not main.model.loading and main.model.rowCount() == 2, timeout=10_000)
    broken = next(main.model.row_at(i) for i in range(2) if main.model.row_at(i).status != "ok")
    main.open_in_loupe(broken.image_id)
    text = main.loupe.view._message_item.toPlainText()
    assert text.startswith("Cannot show this file:") and "Loading" not in text
    main.loupe.full_resolution.wait_idle()
    main.marks.close()


def test_frames_passed_by_are_not_decoded_before_the_one_stopped_on(qtbot, tmp_path) -> None:
    paths = [str(p) for p in write_detailed_jpegs(tmp_path / "walk", 8, size=(1600, 1200))]
    cache = FullResolutionCache()
    for path in paths:  # the user holds the arrow key: a request per frame passed
        cache.request(path)
    dropped = cache.drop_queued({paths[-1]})
    qtbot.waitUntil(lambda: cache.cached(paths[-1]) is not None, timeout=20_000)
    cache.wait_idle()
    passed_by = [path for path in paths if cache.cached(path) is None]
    assert dropped >= 1 and len(passed_by) == dropped  # two decode at once; the rest were still queued
    assert cache.request(passed_by[0]) is None  # going back to one of them decodes it after all
    qtbot.waitUntil(lambda: cache.cached(passed_by[0]) is not None, timeout=20_000)
    cache.stop()


def write_named_jpegs(folder: Path, sizes: dict[str, tuple[int, int]]) -> dict[str, Path]:
    """Detailed JPEGs (noise over a gradient) named as given, each at its own (width, height)."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(11)
    paths = {}
    for index, (name, (width, height)) in enumerate(sizes.items()):
        base = np.linspace(0, 200, width, dtype=np.float32)[None, :, None] + index * 10
        rgb = np.clip(base + rng.normal(0, 25, (height, width, 3)), 0, 255).astype(np.uint8)
        paths[name] = folder / name
        Image.fromarray(rgb).save(paths[name], quality=92)
    return paths


def test_a_remembered_100_percent_shows_the_next_frame_s_own_pixels_and_fit_stays_fit(qtbot, app_context, tmp_path) -> None:
    # the photographer's steps: 100 % in the loupe on a 1850x2775 frame, Esc; Z in the survey, Esc;
    # Enter on a 1431x2145 frame: the caption said 129 % (the larger frame's scale relative to fit)
    from tests.qt.conftest import select_rows

    app_context.settings["welcome_done"] = True
    main = MainWindow(app_context)
    qtbot.addWidget(main)
    main.resize(1280, 800)
    main.show()
    paths = write_named_jpegs(tmp_path / "portraits", {"IMG_0051.jpg": (1200, 1800), "IMG_0113.jpg": (900, 1350)})
    handle = main.import_folders([tmp_path / "portraits"])
    qtbot.waitUntil(lambda: handle.done, timeout=60_000)
    assert handle.state is JobState.FINISHED, handle.error_text
    qtbot.waitUntil(lambda: not main.model.loading and main.model.rowCount() == 2, timeout=10_000)
    rows = {Path(main.model.row_at(i).path).name: (i, main.model.row_at(i)) for i in range(2)}
    big, small = rows["IMG_0051.jpg"][1], rows["IMG_0113.jpg"][1]
    assert Path(small.path) == paths["IMG_0113.jpg"]
    loupe, survey = main.loupe, main.survey

    with qtbot.waitSignal(loupe.full_resolution_shown, timeout=20_000):
        main.open_in_loupe(big.image_id)
    qtbot.keyClick(loupe, Qt.Key.Key_Z)
    assert loupe.view.actual_zoom() == pytest.approx(1.0)
    qtbot.keyClick(loupe, Qt.Key.Key_Escape)
    select_rows(main, [rows["IMG_0051.jpg"][0], rows["IMG_0113.jpg"][0]])
    main.show_view("survey")
    qtbot.waitUntil(lambda: all(c.view.has_image() for c in survey.cells[:2]), timeout=10_000)
    qtbot.keyClick(survey, Qt.Key.Key_Z)
    qtbot.waitUntil(lambda: all(c.full_shown for c in survey.cells[:2]), timeout=30_000)
    qtbot.keyClick(survey, Qt.Key.Key_Escape)

    main.open_in_loupe(small.image_id)  # what Enter in the grid does; its original is in memory
    assert loupe.showing_full_resolution and loupe.view.image().height() == 1350
    assert loupe.view.actual_zoom() == pytest.approx(1.0)
    assert loupe.view.transform().m11() == pytest.approx(1.0)  # one source pixel per screen pixel
    assert loupe.zoom_label.text() == "100%"
    qtbot.keyClick(loupe, Qt.Key.Key_Z)  # 100 % → fit, as the caption promised
    assert loupe.view.zoom == 1.0 and loupe.view.actual_zoom() < 1.0
    main.open_in_loupe(big.image_id)  # fit stays fit on the next frame
    assert loupe.showing_full_resolution and loupe.view.zoom == 1.0
    assert loupe.zoom_label.text() == f"{loupe.view.actual_zoom():.0%}"
    main.loupe.full_resolution.wait_idle()
    main.marks.close()


def test_a_frame_not_decoded_yet_opens_at_the_remembered_100_percent_too(qtbot, window) -> None:
    loupe = window.loupe
    rows = [window.model.row_at(i) for i in range(3)]
    with qtbot.waitSignal(loupe.full_resolution_shown, timeout=20_000):
        window.open_in_loupe(rows[0].image_id)
    loupe.toggle_actual_size(1.0, QPointF(0.3, 0.4))
    assert loupe.full_resolution.cached(rows[2].path) is None  # only the next one (rows[1]) is read ahead
    with qtbot.waitSignal(loupe.full_resolution_shown, timeout=20_000):
        window.open_in_loupe(rows[2].image_id)
        qtbot.waitUntil(loupe.view.has_image, timeout=10_000)
        # the preview (or thumbnail) first, already at 100 % of the original, at the same place
        assert not loupe.showing_full_resolution
        assert loupe.view.actual_zoom() == pytest.approx(1.0)
        assert loupe.zoom_label.text() == "100%  (preview)"
    centre = loupe.view.centre_fraction()
    assert loupe.view.actual_zoom() == pytest.approx(1.0) and loupe.view.transform().m11() == pytest.approx(1.0)
    assert centre.x() == pytest.approx(0.3, abs=0.01) and centre.y() == pytest.approx(0.4, abs=0.01)
    assert loupe.zoom_label.text() == "100%"


def test_z_in_the_loupe_centres_100_percent_on_the_subject_as_the_survey_does(qtbot, app_context, tmp_path) -> None:
    from tests.qt.conftest import imported_main_window
    from tests.qt.test_survey import write_chandelier_burst

    write_chandelier_burst(tmp_path / "chandelier", count=1)
    main = imported_main_window(qtbot, app_context, tmp_path / "chandelier", 1, size=(1280, 800))
    loupe = main.loupe
    with qtbot.waitSignal(loupe.full_resolution_shown, timeout=20_000):
        main.open_in_loupe(main.model.row_at(0).image_id)
    qtbot.keyClick(loupe, Qt.Key.Key_Z)
    centre = loupe.view.centre_fraction()
    assert loupe.view.actual_zoom() == pytest.approx(1.0)
    assert (centre.x(), centre.y()) == (pytest.approx(0.75, abs=0.01), pytest.approx(0.375, abs=0.01))
    qtbot.keyClick(loupe, Qt.Key.Key_Z)
    loupe.view.clicked.emit(QPointF(0.2, 0.7))  # a click still zooms at the clicked point
    centre = loupe.view.centre_fraction()
    assert (centre.x(), centre.y()) == (pytest.approx(0.2, abs=0.01), pytest.approx(0.7, abs=0.01))
    loupe.full_resolution.wait_idle()
    main.marks.close()
