"""Ingest trusts nothing outside its destination: a journal line naming a file elsewhere (the card
itself) or a link out of it is never "already there", and a backup in the destination is refused."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from aesthete_gui.services.card_ingest import IngestError, ingest_card
from aesthete_gui.services.ingest_journal import JOURNAL
from aesthete_gui.services.verified_copy import file_hash
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
