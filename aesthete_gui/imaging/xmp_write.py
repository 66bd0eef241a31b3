"""Compare-and-swap writes of a sidecar: an edit another program makes while we write is never lost.

`swap_file` reads the sidecar, builds our bytes from it, looks once more that the sidecar is still
the file read (else builds again from the new one: our bytes made from an older file never stand
under its name, where a program reacting to changes could read them), and swaps them in with one
atomic exchange of names (Linux renameat2): the file that was displaced is then in hand. If it is still
the file we read (same device, inode, size, mtime and bytes) it is removed and the write is done.
If another program's save landed between that last look and the exchange, a second exchange puts
its file back at once (ours, built from the older file, stood under the name for those two calls
only, never while we build anew), then our bytes are built again from *its* content (its fields
win, ours go on top) and swapped in the same way; after a few rounds of that the write is refused,
the other program's file in place. Should yet another save replace ours in the moment between the
two exchanges, the newest stands and the one it would displace is kept aside visibly
(atomic_write.keep_aside). Where the system cannot exchange names, the check runs right before a
plain rename instead.

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
    keep_aside,
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
    temporary: Path | None = None
    try:
        for attempt in range(1, MAX_ATTEMPTS + 1):
            data = build(None if current is not None and current.dangling else current)
            if data is None or (current is not None and data == current.data):
                return SwapResult(target, current, None, attempt)
            mode, group = _mode_and_group(target, new_mode)
            temporary = write_temporary(target.parent, data, mode, group)
            mine = _ours(temporary, data, limit)
            if current is None:
                if link_new(temporary, target):
                    temporary = None
                    sync_folder(target.parent)
                    return SwapResult(target, None, read_snapshot(target, limit) or mine, attempt)
                os.unlink(temporary)
                temporary, current = None, read_snapshot(target, limit)
                continue
            # a kill after the swap leaves the displaced file to be put back (atomic_write.remove_leftovers);
            # named before the last look, so that nothing but the exchange itself follows that look
            temporary = swap_name(temporary, target, current.data, data, tag() if callable(tag) else tag)
            # look once more right before the swap: an edit that landed since our read is merged
            # without our stale bytes ever standing under the sidecar's name, where a program
            # reacting to the change could read them and build its next edit on them (an attack
            # lost 7 keywords of 1,794 that way when the check came only after the swap)
            now = read_snapshot(target, limit)
            if now is None or not now.same_as(current):
                os.unlink(temporary)
                temporary, current = None, now
                continue
            if not exchange(temporary, target):
                os.replace(temporary, target)  # no exchange here: the file was unchanged a moment ago
                temporary = None
                sync_folder(target.parent)
                return SwapResult(target, current, read_snapshot(target, limit) or mine, attempt)
            # from here the swap file holds what was displaced: never deleted unread (an error or a
            # kill leaves it to be settled by the next run, atomic_write.remove_leftovers)
            swapped, temporary = temporary, None
            displaced = read_snapshot(swapped, limit)
            # gone: another Aesthete whose process table does not show ours (a container, another
            # computer on the share) settled it as a leftover, which it does only by keeping what it
            # held. Either way ours stands; building anew from "no sidecar" would have written a bare
            # packet over the sidecar (an attack lost a keyword and a headline so).
            if displaced is None or displaced.same_as(current):
                if displaced is not None:
                    os.unlink(swapped)
                sync_folder(target.parent)
                return SwapResult(target, current, read_snapshot(target, limit) or mine, attempt)
            # another program saved between our last look and the exchange: its file is at `swapped`,
            # ours (built from the older file) under the sidecar's name. Put its file back at once, and
            # only then merge from it: an attack (F4) lost a keyword when ours stood there while the
            # next round was built and fsynced, and the program's next save was built on it
            current = _put_back(target, swapped, mine, limit)
        raise FileChanged(f"changed by another program {MAX_ATTEMPTS} times while it was being written")
    except BaseException:
        if temporary is not None:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
        raise


def _put_back(target: Path, displaced_at: Path, ours: Snapshot, limit: int) -> Snapshot | None:
    """Right after an exchange that displaced another program's save (now at `displaced_at`, ours
    under `target`'s name): exchange back, so that its file stands again, and remove ours. Returns
    the file now under `target`'s name, to merge from. If yet another save landed in the moment
    between (it replaced ours), that newest one is put in place and the save it would displace is
    kept aside under a visible name (atomic_write.keep_aside): never deleted. A failure of the file
    system leaves the swap file as a killed write leaves it, for the next run to settle."""
    exchange(displaced_at, target)
    back = read_snapshot(displaced_at, limit)
    if back is None or back.same_as(ours):
        if back is not None:
            os.unlink(displaced_at)
    else:  # a newer save replaced ours before we could take it out: the newest stands
        exchange(displaced_at, target)
        keep_aside(displaced_at, target)
    sync_folder(target.parent)
    return read_snapshot(target, limit)


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
