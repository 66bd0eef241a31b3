"""The export dialog offers Copy or Move; a move from the main window takes the files and their
sidecars along, and the library (and its rows) follow them."""

from __future__ import annotations

from pathlib import Path

from PIL import Image
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from aesthete_gui.imaging.xmp import write_sidecar
from aesthete_gui.qt.culling_menu import EXPORT_FOLDER_SETTING, EXPORT_MOVE_SETTING
from aesthete_gui.qt.dialogs.export_picks import ExportPicksDialog
from aesthete_gui.qt.item_models import ImageRow
from aesthete_gui.store import ImageUpdate
from tests.qt.conftest import shown_main_window


def test_the_dialog_names_the_choice_and_needs_a_folder(qtbot) -> None:
    dialog = ExportPicksDialog(3, "picks")
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    assert not dialog.wants_move() and dialog.ok_button.text() == "Copy"
    assert not dialog.ok_button.isEnabled()
    dialog.folder_edit.setText("  /tmp/keepers ")
    assert dialog.ok_button.isEnabled() and dialog.folder() == "/tmp/keepers"
    qtbot.mouseClick(dialog.move_radio, Qt.MouseButton.LeftButton)
    assert dialog.wants_move() and dialog.ok_button.text() == "Move"
    assert "removed once its copy is verified" in dialog.move_hint.text() and dialog.move_hint.isEnabled()
    assert not dialog.copy_hint.isEnabled()  # the choice not taken is muted, not hidden
    remembered = ExportPicksDialog(1, "photograph shown", "/tmp/last", move=True)
    qtbot.addWidget(remembered)
    assert remembered.findChild(QLabel).text() == "1 photograph shown and its XMP sidecar, to the folder:"
    assert remembered.move_radio.shortcut().toString() == "Alt+M"  # Copy / Move from the keyboard
    assert remembered.wants_move() and remembered.folder() == "/tmp/last"


def _overlaps(a, b) -> bool:
    return a.geometry().intersects(b.geometry())


def test_the_explanations_never_overlap_the_choices_or_the_buttons(qtbot) -> None:
    dialog = ExportPicksDialog(20, "picks", "/home/photographer/Pictures/2026-06-13 delivery")
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    for width in (dialog.minimumWidth(), 640, 900):
        for radio in (dialog.move_radio, dialog.copy_radio):
            radio.setChecked(True)
            dialog.resize(width, 10)  # as small as it lets itself be
            qtbot.wait(20)
            widgets = [dialog.copy_radio, dialog.copy_hint, dialog.move_radio, dialog.move_hint, dialog.buttons]
            for i, first in enumerate(widgets):
                for second in widgets[i + 1 :]:
                    assert not _overlaps(first, second), (width, first, second)
            for hint in (dialog.copy_hint, dialog.move_hint):  # the whole text fits: nothing clipped
                assert hint.height() >= hint.heightForWidth(hint.width())


def test_moving_picks_from_the_main_window(qtbot, app_context, tmp_path: Path) -> None:
    main = shown_main_window(qtbot, app_context)
    shoot = tmp_path / "shoot"
    shoot.mkdir()
    paths = [shoot / f"m{n}.jpg" for n in range(3)]
    for n, path in enumerate(paths):
        Image.new("RGB", (64, 48), (40 * n, 90, 120)).save(path)
    write_sidecar(paths[0], 3, "pick", None)
    profile = app_context.profile
    ids = profile.catalog.write_images([ImageUpdate(path=str(p), folder_id=None, status="ok") for p in paths])
    for n in (0, 2):
        profile.marks.set(ids[n], flag="pick")
    main.model.set_rows([ImageRow(image_id=i, path=str(p), flag="pick" if n != 1 else None)
                         for n, (i, p) in enumerate(zip(ids, paths, strict=True))])  # fmt: skip
    dest = tmp_path / "keepers"
    dialog = main._choose_and_copy(picks_only=True)
    assert dialog is not None and dialog.isVisible()
    dialog.folder_edit.setText(str(dest))
    qtbot.mouseClick(dialog.move_radio, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "Moved 2 photographs" in main.statusBar().currentMessage(), timeout=10_000)
    assert sorted(p.name for p in dest.iterdir()) == ["m0.jpg", "m0.xmp", "m2.jpg"]
    assert sorted(p.name for p in shoot.iterdir()) == ["m1.jpg"]
    assert [profile.catalog.image_by_id(i).path for i in ids] == [str(dest / "m0.jpg"), str(paths[1]), str(dest / "m2.jpg")]
    assert profile.marks.get(ids[0]).flag == "pick"
    assert app_context.settings[EXPORT_FOLDER_SETTING] == str(dest) and app_context.settings[EXPORT_MOVE_SETTING] is True
    qtbot.waitUntil(lambda: (row := main.model.row_for(ids[0])) is not None and row.path == str(dest / "m0.jpg"), timeout=10_000)
    # the photographs moved out of every imported folder: their new folder is listed in the library
    folder = next(f for f in profile.catalog.folders() if f.path == str(dest))
    assert profile.catalog.image_by_id(ids[0]).folder_id == folder.id and profile.catalog.image_by_id(ids[2]).folder_id == folder.id
    qtbot.waitUntil(lambda: "keepers  (2)" in _library_texts(main), timeout=10_000)
    main.marks.close()


def _library_texts(main) -> list[str]:
    tree = main.library.tree
    return [tree.topLevelItem(i).child(j).text(0) for i in range(tree.topLevelItemCount())
            for j in range(tree.topLevelItem(i).childCount())]  # fmt: skip


def test_nothing_to_export_says_so(qtbot, app_context) -> None:
    main = shown_main_window(qtbot, app_context)
    assert main._choose_and_copy(picks_only=True) is None
    assert main.statusBar().currentMessage() == "Nothing to copy: no picks."
    main.marks.close()
