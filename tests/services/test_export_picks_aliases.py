"""A move never removes an original its copy *is* (the destination reached by another path), stores
absolute paths for a relative destination, and leaves a sidecar another program edited mid-move."""

from __future__ import annotations

import os
from pathlib import Path

from aesthete_gui.services import export_picks as picks
from aesthete_gui.services.export_picks import export_picks
from aesthete_gui.services.verified_copy import file_hash
from tests.services.test_export_picks import library  # noqa: F401 (the fixture)


def test_a_destination_holding_the_originals_under_other_names_loses_nothing(library, tmp_path: Path) -> None:  # noqa: F811
    # an attack moved picks into their own folder through a bind mount: the originals were taken for
    # copies "already there with the same bytes" and removed. Hard links are the same situation
    # without root: the destination's files are the originals themselves.
    profile, ids, shoot = library
    alias = tmp_path / "alias"
    alias.mkdir()
    for name in ("IMG_0.jpg", "IMG_0.xmp", "IMG_1.jpg"):
        os.link(shoot / name, alias / name)
    result = export_picks(profile, ids[:2], alias, move=True)
    assert sorted(p.name for p in shoot.iterdir()) == ["IMG_0.jpg", "IMG_0.xmp", "IMG_1.jpg", "IMG_2.jpg"]
    assert result.copied == [] and len(result.skipped) == 2 and all("the original stays" in why for _, why in result.skipped)
    assert picks._same_folder(shoot, shoot / "." / ".." / shoot.name)


def test_a_relative_destination_is_recorded_as_an_absolute_path(library, tmp_path: Path, monkeypatch) -> None:  # noqa: F811
    profile, ids, _shoot = library
    monkeypatch.chdir(tmp_path)
    result = export_picks(profile, ids[:1], "out", move=True)
    record = profile.catalog.image_by_id(ids[0])
    assert record is not None and record.path == str(tmp_path / "out" / "IMG_0.jpg")
    assert result.destination == str(tmp_path / "out")


def test_a_sidecar_edited_after_its_copy_was_made_stays_where_it_was(tmp_path: Path) -> None:
    source, target = tmp_path / "IMG_1.xmp", tmp_path / "copy" / "IMG_1.xmp"
    target.parent.mkdir()
    source.write_text("<x:xmpmeta xmlns:x='adobe:ns:meta/'/>", encoding="utf-8")
    target.write_bytes(source.read_bytes())
    copied = file_hash(source)
    source.write_text("<x:xmpmeta xmlns:x='adobe:ns:meta/'><!-- another program's edit --></x:xmpmeta>", encoding="utf-8")
    why = picks._remove_original(source, target, copied, sidecar=True)
    assert why is not None and "left where it was" in why
    assert "another program's edit" in source.read_text(encoding="utf-8")
    assert [p.name for p in tmp_path.iterdir() if p.is_file()] == ["IMG_1.xmp"]  # nothing left aside
    assert picks._remove_original(source, target, file_hash(source), sidecar=True) is None and not source.exists()


def test_a_move_into_the_source_folder_through_an_overlay_mount_loses_nothing(library, tmp_path: Path) -> None:  # noqa: F811
    # the overlay gives the same files other inodes: the identity check passed, the originals were
    # taken for copies "already there" and removed (every one). A probe file made in the
    # destination that shows up in the source folder says they are one folder.
    from tests.robustness.fs_faults import overlay_of

    profile, ids, shoot = library
    before = sorted(p.name for p in shoot.iterdir())
    with overlay_of(shoot, tmp_path / "view") as view:
        result = export_picks(profile, ids[:2], view, move=True)
        assert sorted(p.name for p in shoot.iterdir()) == before
        assert [why for _, why in result.skipped] == ["already in that folder"] * 2
    assert not [p for p in shoot.iterdir() if p.name.startswith(".aesthete-probe")]


def test_a_sidecar_parked_by_a_killed_move_is_settled_by_the_next_one(tmp_path: Path) -> None:
    # killed between parking the sidecar aside and removing it: the parked file stayed hidden and
    # the rerun said nothing (another program's edit in it would be found by no one)
    from aesthete_gui.services import move_journal

    source, copy = tmp_path / "shoot" / "IMG_1.xmp", tmp_path / "out" / "IMG_1.xmp"
    for folder in (source.parent, copy.parent):
        folder.mkdir()
    copy.write_text("<x:xmpmeta xmlns:x='adobe:ns:meta/'/>", encoding="utf-8")
    parked = Path(move_journal.aside_name(source))
    parked.write_bytes(copy.read_bytes())  # as copied: the move had finished but for the removal
    profile = tmp_path / "p.db"
    move_journal.begin(profile, [(str(source), str(copy), file_hash(copy))])
    _as_if_killed(profile)
    move_journal.finish_interrupted(profile, lambda _s, _c: None)
    assert not parked.exists() and not source.exists() and copy.exists()

    parked.write_text("<x:xmpmeta xmlns:x='adobe:ns:meta/'><!-- edited --></x:xmpmeta>", encoding="utf-8")
    move_journal.begin(profile, [(str(source), str(copy), file_hash(copy))])
    _as_if_killed(profile)
    notes = move_journal.finish_interrupted(profile, lambda _s, _c: None)
    assert not parked.exists() and "edited" in source.read_text(encoding="utf-8")
    assert any("put back" in note for note in notes)


def _as_if_killed(profile: Path) -> None:
    """The move journal's pending entries, as a process that died left them (its pid gone)."""
    import subprocess

    from aesthete_gui.services import move_journal

    gone = subprocess.Popen(["true"])
    gone.wait()
    path = move_journal.journal_path(profile)
    path.write_text(path.read_text(encoding="utf-8").replace(f'"pid": {os.getpid()}', f'"pid": {gone.pid}'), encoding="utf-8")


def test_a_completed_move_leaves_no_mark_and_a_link_to_the_original_is_never_its_copy(library, tmp_path: Path) -> None:  # noqa: F811
    # a fourth attack copied marked files back over the originals (cp -a keeps attributes) and
    # linked to them from a new destination: the move was "finished" into the links
    from aesthete_gui.services.export_picks import MOVED_FROM, _mark_copy

    profile, ids, shoot = library
    done = tmp_path / "done"
    export_picks(profile, ids[:1], done, move=True)
    assert MOVED_FROM not in os.listxattr(done / "IMG_0.jpg")
    links = tmp_path / "links"
    links.mkdir()
    (links / "IMG_1.jpg").symlink_to(shoot / "IMG_1.jpg")
    _mark_copy(shoot / "IMG_1.jpg", shoot / "IMG_1.jpg", file_hash(shoot / "IMG_1.jpg"))  # names itself
    result = export_picks(profile, ids[1:2], links, move=True)
    assert (shoot / "IMG_1.jpg").is_file() and not (shoot / "IMG_1.jpg").is_symlink()
    assert profile.catalog.image_by_id(ids[1]).path == str(shoot / "IMG_1.jpg")
    assert result.already_there == [] and "the original stays" in result.skipped[0][1]
