"""Ingest trusts nothing outside its destination: a journal line naming a file elsewhere (the card
itself) or a link out of it is never "already there", and a backup in the destination is refused."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from aesthete_gui.services.card_ingest import IngestError, ingest_and_import, ingest_card
from aesthete_gui.services.ingest_journal import JOURNAL
from aesthete_gui.services.verified_copy import file_hash
from aesthete_gui.store import open_profile
from tests.services.library_images import write_jpeg
from tests.services.test_card_ingest import _card


def _claim(dest: Path, files: list[Path], path_of) -> None:
    """A journal in `dest` whose lines say the card's files were copied to path_of(file)."""
    dest.mkdir(parents=True, exist_ok=True)
    lines = []
    for n, source in enumerate(files):
        info = source.stat()
        lines.append({"hash": file_hash(source), "path": path_of(source), "seq": n, "inode": info.st_ino,
                      "size": info.st_size, "mtime_ns": info.st_mtime_ns})  # fmt: skip
    (dest / JOURNAL).write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


@pytest.mark.parametrize("spelling", ["relative", "absolute"])
def test_a_journal_line_naming_the_card_is_not_a_copy(tmp_path: Path, spelling: str) -> None:
    files = _card(tmp_path / "card")
    dest = tmp_path / "photos"
    _claim(dest, files, lambda f: os.path.relpath(f, dest) if spelling == "relative" else str(f))
    summary = ingest_card(tmp_path / "card", dest)
    copied = sorted(p for p in dest.rglob("*.JPG"))
    assert len(copied) == 3 and {file_hash(p) for p in copied} == {file_hash(f) for f in files}
    assert (summary.copied, summary.skipped) == (3, 0)


def test_a_link_in_the_destination_to_the_card_is_not_a_copy(tmp_path: Path) -> None:
    files = _card(tmp_path / "card")
    dest = tmp_path / "photos"
    (dest / "2024").mkdir(parents=True)
    for f in files:
        (dest / "2024" / f.name).symlink_to(f)
    _claim(dest, files, lambda f: f"2024/{f.name}")
    ingest_card(tmp_path / "card", dest)
    regular = [p for p in dest.rglob("*.JPG") if p.is_file() and not p.is_symlink()]
    assert len(regular) == 3


@pytest.mark.parametrize("backup", ["photos", "photos/backup"])
def test_a_backup_that_is_the_destination_is_refused_before_copying(tmp_path: Path, backup: str) -> None:
    _card(tmp_path / "card")
    with pytest.raises(IngestError, match="no second copy"):
        ingest_card(tmp_path / "card", tmp_path / "photos", backup=tmp_path / backup)
    assert not (tmp_path / "photos").exists() or not any((tmp_path / "photos").rglob("*.JPG"))


def test_a_source_inside_the_destination_is_refused_before_copying(tmp_path: Path) -> None:
    # the import that follows an ingest reads the destination: the card's own files came in too,
    # five duplicates that went missing when the card was taken out
    _card(tmp_path / "photos" / "card")
    with pytest.raises(IngestError, match="imported twice"):
        ingest_card(tmp_path / "photos" / "card", tmp_path / "photos")
    assert sorted(p.name for p in (tmp_path / "photos").iterdir()) == ["card"]


def test_a_copy_damaged_in_place_with_its_time_kept_is_copied_again(tmp_path: Path) -> None:
    # its size, inode and time once sufficed for "already there (same bytes)"
    files = _card(tmp_path / "card")
    dest = tmp_path / "photos"
    ingest_card(tmp_path / "card", dest)
    copy = sorted(dest.rglob("*.JPG"))[0]
    info = copy.stat()
    with open(copy, "r+b") as handle:
        handle.seek(3000)
        handle.write(bytes(8))  # eight bytes of the copy changed
    os.utime(copy, ns=(info.st_atime_ns, info.st_mtime_ns))
    summary = ingest_card(tmp_path / "card", dest)
    assert (summary.copied, summary.skipped) == (1, 2)
    intact = {file_hash(p) for p in dest.rglob("*.JPG")}
    assert {file_hash(f) for f in files} <= intact


def test_a_linked_folder_in_the_destination_that_leads_to_the_card_is_not_a_copy(tmp_path: Path) -> None:
    files = _card(tmp_path / "card")
    dest = tmp_path / "photos"
    dest.mkdir()
    (dest / "x").symlink_to(files[0].parent)
    _claim(dest, files, lambda f: f"x/{f.name}")
    summary = ingest_card(tmp_path / "card", dest)
    assert summary.copied == 3
    assert len([p for p in dest.rglob("*.JPG") if not p.is_relative_to(dest / "x")]) == 3


def test_a_backup_inside_the_destination_through_a_link_is_refused_even_before_it_exists(tmp_path: Path) -> None:
    # a second attack: --backup b5/new with b5 a bind mount (here a symlink) of the destination
    _card(tmp_path / "card")
    (tmp_path / "photos").mkdir()
    (tmp_path / "alias").symlink_to(tmp_path / "photos")
    with pytest.raises(IngestError, match="no second copy"):
        ingest_card(tmp_path / "card", tmp_path / "photos", backup=tmp_path / "alias" / "new")
    assert not (tmp_path / "photos" / "new").exists()


def test_a_card_link_to_a_file_or_folder_off_the_card_is_named_and_never_copied(tmp_path: Path) -> None:
    """An attack (F5): a card file `pw.jpg -> /etc/passwd` was copied into the library byte for byte,
    imported as an error row and counted among the card's photographs. A link leading off the card (a
    file or a folder) is now named once among the problems and left alone; links on the card still
    work (a hard link and a symlink to one photograph become one copy)."""
    files = _card(tmp_path / "card")
    dcim = files[0].parent
    passwd = tmp_path / "etc" / "passwd"
    passwd.parent.mkdir()
    passwd.write_text("root:x:0:0:root:/root:/bin/bash\n", encoding="utf-8")
    elsewhere = tmp_path / "home" / "Pictures"
    elsewhere.mkdir(parents=True)
    private = write_jpeg(elsewhere / "PRIVATE.JPG", seed=9, when="2024:06:12 11:00:00")
    before = {p: file_hash(p) for p in (passwd, private)}
    (dcim / "pw.jpg").symlink_to(passwd)
    (dcim / "OUT_0001.JPG").symlink_to(os.path.relpath(private, dcim))  # relative, through ../..
    (dcim.parent / "101LINK").symlink_to(elsewhere, target_is_directory=True)  # a folder off the card
    (dcim / "LINK_0000.JPG").symlink_to(files[0].name)  # on the card
    (dcim / "ABS_0001.JPG").symlink_to(files[1])  # on the card, by its absolute path
    os.link(files[2], dcim / "HARD_0002.JPG")
    dest = tmp_path / "photos"
    profile = open_profile(tmp_path / "p.db")
    try:
        summary = ingest_and_import(profile, tmp_path / "card", dest, template="{name}{ext}", workers=1)
        images = profile.catalog.images()
    finally:
        profile.close()
    problems = dict(summary.problems)
    assert problems == {
        str(dcim / "pw.jpg"): f"a symbolic link to a file outside the card ({passwd}); not copied "
                              "(copy that file itself if it belongs in the library)",
        str(dcim / "OUT_0001.JPG"): f"a symbolic link to a file outside the card ({private}); not copied "
                                    "(copy that file itself if it belongs in the library)",
        str(dcim.parent / "101LINK"): f"a symbolic link to a folder outside the card ({elsewhere}); not copied "
                                      "(copy that folder itself if it belongs in the library)",
    }  # fmt: skip
    # the card's own photographs: three, each reached once more through a link on the card
    assert (summary.found, summary.copied, summary.skipped) == (6, 3, 3)
    copies = sorted(p for p in dest.rglob("*") if p.is_file() and not p.name.startswith("."))
    assert sorted(file_hash(p) for p in copies) == sorted(file_hash(f) for f in files)
    assert file_hash(passwd) not in {file_hash(p) for p in copies} and not (dest / "pw.jpg").exists()
    assert sorted((i.path, i.status) for i in images) == [(str(p), "ok") for p in copies]  # no error row
    assert {p: file_hash(p) for p in (passwd, private)} == before and (dcim / "pw.jpg").is_symlink()


def test_a_card_folder_link_off_the_card_is_not_walked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a link to / on a card made the scan walk the whole disk before naming it
    from aesthete_gui.services import library_scan

    files = _card(tmp_path / "card")
    elsewhere = tmp_path / "disk"
    (elsewhere / "deep" / "deeper").mkdir(parents=True)
    write_jpeg(elsewhere / "deep" / "deeper" / "X.JPG", seed=3)
    (files[0].parent.parent / "ROOT").symlink_to(elsewhere, target_is_directory=True)
    walked: list[str] = []
    real_scandir = os.scandir

    def watched(path):  # type: ignore[no-untyped-def]
        walked.append(os.fspath(path))
        return real_scandir(path)

    monkeypatch.setattr(library_scan.os, "scandir", watched)
    summary = ingest_card(tmp_path / "card", tmp_path / "photos")
    monkeypatch.undo()
    assert not [w for w in walked if "ROOT" in w or str(elsewhere) in w]
    assert [p for p, _ in summary.problems] == [str(files[0].parent.parent / "ROOT")]
    assert summary.copied == 3


def test_a_photo_reached_through_a_folder_link_on_the_card_is_not_counted_as_not_copied(tmp_path: Path) -> None:
    # a second attack: copied once, and also listed among "not copied (not photographs): 1 .JPG"
    from aesthete_gui.services.card_scan import scan_card

    files = _card(tmp_path / "card")
    (tmp_path / "card" / "sub").mkdir()
    write_jpeg(tmp_path / "card" / "sub" / "S1.JPG", seed=11)
    (files[0].parent / "subl").symlink_to(tmp_path / "card" / "sub", target_is_directory=True)
    contents = scan_card(str(tmp_path / "card"))
    assert ".JPG" not in contents.not_copied and not contents.problems
    assert sum(1 for unit in contents.units for f in unit.files if f.photo) == len(files) + 1  # S1 once
