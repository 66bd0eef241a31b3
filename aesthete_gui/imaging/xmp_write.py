"""Compare-and-swap writes of a sidecar: an edit another program makes while we write is never lost.

`swap_file` reads the sidecar, builds our bytes from it, looks once more that the sidecar is still
the file read (else builds again from the new one: our bytes made from an older file never stand
under its name, where a program reacting to changes could read them), and swaps them in with one
atomic exchange of names (Linux renameat2): the file that was displaced is then in hand. If it is still
the file we read (same device, inode, size, mtime and bytes) it is removed and the write is done.
If another program replaced or rewrote the sidecar in between, its file is kept aside, our bytes
are built again from *its* content (its fields win, ours go on top) and swapped in again; after a
few rounds of that the write is refused and the other program's file is put back. Where the
system cannot exchange names, the check runs right before a plain rename instead.

A new sidecar is given its name with a hard link, which fails if the name was taken meanwhile (the
other program's new file is then read and merged like any other). `restore_file` puts earlier
bytes back (or deletes a sidecar we created) only if the file is still exactly what we wrote.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from aesthete_gui.atomic_write import (
    TEMP_PREFIX,
    FileState,
    Snapshot,
    exchange,
    link_new,
    process_tag,
    read_snapshot,
    swap_name,
    sync_folder,
    write_temporary,
)

MAX_ATTEMPTS = 8
"""Rounds of re-reading and re-merging before a write gives up (each round is a fresh outside edit)."""


class FileChanged(Exception):
    """The file is not the one expected (another program changed it); nothing was written."""


@dataclass(frozen=True)
class SwapResult:
    """A finished write: what our bytes replaced (None: the file was new) and ours as written."""

    path: Path
    before: Snapshot | None
    after: Snapshot | None  # None when nothing needed writing
    attempts: int


def _mode_and_group(target: Path, new_mode: int) -> tuple[int, int | None]:
    try:
        info = os.stat(target)
    except OSError:
        return new_mode, None
    return info.st_mode & 0o7777, info.st_gid


def _ours(temporary: Path, data: bytes, limit: int) -> Snapshot:
    snapshot = read_snapshot(temporary, limit)
    if snapshot is None or snapshot.data != data:
        raise OSError(f"the temporary file {temporary} changed before it was used")
    return snapshot


def swap_file(
    target: Path,
    build: Callable[[Snapshot | None], bytes | None],
    limit: int,
    new_mode: int = 0o644,
    tag: Callable[[], str] | str = "",
) -> SwapResult:
    """Write `build(current)` over `target` only while `target` is still `current` (see the module).
    `tag` (or what it returns, asked after each build) goes into the swap file's name
    (atomic_write.swap_name): what the write sets, for finishing it after a kill.

    `build` gets the file as it is now (None when absent) and returns our bytes, or None when
    nothing needs to change; whatever it raises stops the write. OSError when the file system
    fails; FileChanged after MAX_ATTEMPTS rounds of outside edits.
    """
    current = read_snapshot(target, limit)
    held: Path | None = None  # another program's newer file, parked while ours replaces it
    ours_in_place: Snapshot | None = None  # our previous round's file, now at `target`
    temporary: Path | None = None
    try:
        for attempt in range(1, MAX_ATTEMPTS + 1):
            data = build(None if current is not None and current.dangling else current)
            if data is None or (ours_in_place is None and current is not None and data == current.data):
                if held is not None:  # superseded by the file now in place, which needs nothing of ours
                    os.unlink(held)
                    held = None
                return SwapResult(target, current, None, attempt)
            expected = ours_in_place or current
            mode, group = _mode_and_group(target, new_mode)
            temporary = write_temporary(target.parent, data, mode, group)
            mine = _ours(temporary, data, limit)
            if expected is None:
                if link_new(temporary, target):
                    temporary = None
                    sync_folder(target.parent)
                    return SwapResult(target, None, read_snapshot(target, limit) or mine, attempt)
                os.unlink(temporary)
                temporary, current = None, read_snapshot(target, limit)
                continue
            # look once more right before the swap: an edit that landed since our read is merged
            # without our stale bytes ever standing under the sidecar's name, where a program
            # reacting to the change could read them and build its next edit on them (an attack
            # lost 7 keywords of 1,794 that way when the check came only after the swap)
            now = read_snapshot(target, limit)
            if now is None or not now.same_as(expected):
                os.unlink(temporary)
                temporary = None
                if ours_in_place is not None:  # our previous round's file was replaced: theirs now
                    ours_in_place = None
                current = now
                continue
            # a kill after the swap leaves the displaced file to be put back (atomic_write.remove_leftovers)
            temporary = swap_name(temporary, target, expected.data, data, tag() if callable(tag) else tag)
            if not exchange(temporary, target):
                now = read_snapshot(target, limit)
                if now is None or not now.same_as(expected):
                    os.unlink(temporary)
                    temporary, current = None, now
                    continue
                os.replace(temporary, target)  # the file was unchanged a moment ago
                temporary = None
                sync_folder(target.parent)
                return SwapResult(target, current, read_snapshot(target, limit) or mine, attempt)
            displaced = read_snapshot(temporary, limit)
            # gone: another Aesthete whose process table does not show ours (a container, another
            # computer on the share) settled it as a leftover, which it does only by keeping what it
            # held. Either way ours stands; building anew from "no sidecar" would have written a bare
            # packet over the sidecar (an attack lost a keyword and a headline so).
            if displaced is None or displaced.same_as(expected):
                if displaced is not None:
                    os.unlink(temporary)
                temporary = None
                if held is not None:
                    os.unlink(held)
                    held = None
                sync_folder(target.parent)
                return SwapResult(target, current, read_snapshot(target, limit) or mine, attempt)
            # another program wrote between our read and the swap: its file is at `temporary`
            if held is not None:
                os.unlink(held)  # superseded by the newer file just displaced
            held, temporary = temporary, None
            current, ours_in_place = displaced, mine
        raise FileChanged(f"changed by another program {MAX_ATTEMPTS} times while it was being written")
    except BaseException:
        if temporary is not None:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
        if held is not None:
            _put_back(target, held, ours_in_place, limit)
        raise


def _put_back(target: Path, held: Path, ours: Snapshot | None, limit: int) -> None:
    """A write that stops half-way: the other program's file goes back in place of ours."""
    with contextlib.suppress(OSError):
        if exchange(held, target):
            displaced = read_snapshot(held, limit)
            if ours is not None and displaced is not None and displaced.same_as(ours):
                os.unlink(held)
            else:  # yet another write came in: keep the newest in place
                exchange(held, target)


def restore_file(target: Path, before: bytes | None, written: FileState, limit: int) -> bool:
    """Put `before` back over `target` (delete it when None) if it is still exactly the file we wrote
    (`written`); False, with nothing changed, when another program changed it since."""

    def unchanged(current: Snapshot | None) -> bytes | None:
        if current is None or current.state != written:
            raise FileChanged("changed since it was written")
        return before

    try:
        if before is not None:
            swap_file(target, unchanged, limit)
            return True
        return _delete_if_unchanged(target, written, limit)
    except FileChanged:
        return False


def _delete_if_unchanged(target: Path, written: FileState, limit: int) -> bool:
    """Move the file aside in one rename, check it is ours, then delete it (else put it back)."""
    current = read_snapshot(target, limit)
    if current is None or current.state != written:
        return False
    aside = target.with_name(f"{TEMP_PREFIX}{process_tag()}-{secrets.token_hex(4)}.xmp.tmp")
    try:
        os.rename(target, aside)
    except FileNotFoundError:
        return False  # someone else removed it meanwhile
    grabbed = read_snapshot(aside, limit)
    if grabbed is not None and grabbed.state == written:
        os.unlink(aside)
        sync_folder(target.parent)
        return True
    link_new(aside, target)  # another program's file: back under its name (kept aside if taken)
    return False
