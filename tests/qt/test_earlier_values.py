"""The inspector shows a photo's earlier mark values: what, who set it (window, command line,
another program through the sidecar, undo) and when (issue 20, point 4)."""

from __future__ import annotations

from pathlib import Path

from aesthete_gui.qt.widgets.earlier_values import describe_marks, earlier_values
from aesthete_gui.qt.widgets.inspector import Inspector
from aesthete_gui.store import ImageUpdate, MarkHistoryEntry, open_profile


def _rows(inspector: Inspector) -> list[tuple[str, str]]:
    form = inspector.earlier
    return [
        (form.itemAt(row, form.ItemRole.LabelRole).widget().text(),
         form.itemAt(row, form.ItemRole.FieldRole).widget().text())
        for row in range(form.rowCount())
    ]  # fmt: skip


def test_the_inspector_lists_earlier_values_with_who_set_them(qtbot, app_context, tmp_path: Path) -> None:
    profile = app_context.profile
    [image_id] = profile.catalog.write_images([ImageUpdate(path=str(tmp_path / "a.jpg"), folder_id=None, status="ok")])
    inspector = Inspector(app_context)
    qtbot.addWidget(inspector)
    inspector.show_image(image_id)
    qtbot.waitUntil(lambda: inspector.details is not None, timeout=10_000)
    assert not inspector.earlier_box.isVisibleTo(inspector)  # never changed: nothing earlier

    profile.marks.set(image_id, stars=2)  # the window's profile (actor "window")
    command_line = open_profile(profile.path, actor="cli")
    command_line.marks.set(image_id, flag="pick", label="Red")
    command_line.close()
    profile.marks.set(image_id, stars=3, source="undo")  # announced: the inspector reloads
    qtbot.waitUntil(lambda: len(_rows(inspector)) == 2, timeout=10_000)
    rows = _rows(inspector)
    assert [value for _, value in rows] == [
        "2★ — set by the window",  # replaced by the undo's 3★; the command line's pick and Red are in force
        "no flag · no label — set by the window",
    ]
    assert all(when[:2] == "20" for when, _ in rows)  # a date and time
    assert inspector.earlier_box.isVisibleTo(inspector)


def test_rows_name_every_source_and_keep_the_newest() -> None:
    history = [MarkHistoryEntry(1, source, n, "reject" if source == "sidecar" else None, None, 0.0, "")
               for n, source in enumerate(["profile", "sidecar", "undo", "import"])]  # fmt: skip
    assert [value for _, value in earlier_values(history, (4, None, None))] == [
        "3★ — set by an import (XMP sidecar)",
        "2★ — set by an undo in the window",
        "1★ · reject — set by another program (XMP sidecar)",
        "no marks — set by this profile",
    ]
    assert len(earlier_values(history * 5, (4, None, None))) == 8
    assert describe_marks(None, None, "Blue") == "Blue"


def test_a_value_still_in_force_is_not_listed_as_an_earlier_one(qtbot, app_context, tmp_path: Path) -> None:
    """A trial: after `aesthete mark --label Green` and a reject in the window, the inspector listed
    "Green — set by the command line" as an earlier value while Green was the label in force."""
    profile = app_context.profile
    [image_id] = profile.catalog.write_images([ImageUpdate(path=str(tmp_path / "IMG_0012.JPG"), folder_id=None, status="ok")])
    command_line = open_profile(profile.path, actor="cli")
    command_line.marks.set(image_id, label="Green")
    command_line.close()
    profile.marks.set(image_id, flag="reject")  # the window's X
    inspector = Inspector(app_context)
    qtbot.addWidget(inspector)
    inspector.show_image(image_id)
    qtbot.waitUntil(lambda: inspector.details is not None, timeout=10_000)
    assert [value for _, value in _rows(inspector)] == ["no flag — set by the command line"]
    assert not any("Green" in value for _, value in _rows(inspector))

    profile.marks.set(image_id, label="Red")  # now Green was replaced: it is an earlier value
    qtbot.waitUntil(lambda: len(_rows(inspector)) == 2, timeout=10_000)
    assert [value for _, value in _rows(inspector)] == [
        "Green — set by the command line",  # by the command line, though the window's reject came after
        "no flag — set by the command line",
    ]
