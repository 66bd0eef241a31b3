"""MarksRepository.set_unless_changed: the compare-and-set undo and redo write through."""

from __future__ import annotations

from pathlib import Path

from aesthete_gui.store import events, open_profile


def test_each_field_changes_only_where_it_still_holds_the_expected_value(tmp_path: Path) -> None:
    profile = open_profile(tmp_path / "p.db", actor="window")
    image = profile.catalog.ensure_image(str(tmp_path / "a.jpg"))
    profile.marks.set(image, stars=3, flag="pick", label="red")
    profile.marks.set(image, flag="reject", source="cli")  # changed elsewhere since
    seen: list[object] = []
    profile.events.subscribe(seen.append)
    mark, left = profile.marks.set_unless_changed(image, {"stars": 3, "flag": "pick", "label": "Red"},
                                                  stars=0, flag=None, label=None, source="undo")  # fmt: skip
    assert left == {"flag"}
    assert (mark.stars, mark.flag, mark.label, mark.source) == (0, "reject", None, "undo")
    assert [type(e) for e in seen] == [events.MarksChanged]
    seen.clear()
    mark, left = profile.marks.set_unless_changed(image, {"flag": "pick"}, flag=None, source="undo")
    assert left == {"flag"} and mark.flag == "reject" and seen == []  # nothing left to write: no event
    profile.close()
