"""Write files atomically: a reader sees the old file or the complete new one.

`write_text_atomically` replaces a file of our own. For files other programs write too (XMP
sidecars) the compare-and-swap pieces below let a writer put its file in place only if the file it
read is still the one there: `exchange` swaps two names in one step (Linux renameat2), so the file
that was displaced is in hand and can be checked; where the system cannot swap, the check is made
right before a rename (a window of microseconds instead of none)."""

from __future__ import annotations

import contextlib
import ctypes
import errno
import functools
import hashlib
import logging
import os
import re
import stat
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)


def write_text_atomically(path: str | os.PathLike[str], text: str, durable: bool = True) -> Path:
    """Write `text` (UTF-8) to a temporary file beside `path`, flush it to disk, then rename it over
    `path`; the temporary file is removed when anything fails (OSError is raised). A replaced file
    keeps its permission bits; a new one gets 0644. `durable=False` skips the fsync (settings
    written on every click: still never partial, only possibly the previous version after a power
    cut). Returns the path written."""
    target = Path(path).expanduser()
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        mode = 0o644
    # a short temporary name: any target name that fits the file system, fits here too
    descriptor, temporary = tempfile.mkstemp(dir=target.parent, prefix=".aesthete-", suffix=".tmp")
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    return target


# -- compare-and-swap replacement of files other programs may write too ------------------------

_AT_FDCWD = -100
_RENAME_EXCHANGE = 2
_exchange_unsupported: set[int] = set()  # devices whose file system refused RENAME_EXCHANGE
TEMP_PREFIX = ".aesthete-"
# the writer: its pid, when that process started and its pid namespace (`s<ticks>n<namespace>`, where
# the system says): a pid reused by a later process does not keep a killed run's file hidden (process_tag)
_WRITER = r"(?P<pid>\d+)(?:s(?P<start>\d+)(?:n(?P<ns>\d+))?)?"
_WRITER_TAG = re.compile(_WRITER)
_LEFTOVER = re.compile(rf"\.aesthete-(?:(?P<writer>{_WRITER})-)?[A-Za-z0-9_]+\.xmp\.tmp")
# a temporary file renamed just before its swap with the sidecar whose name it hashes: after the swap
# it holds the file displaced from the sidecar's name, which may be another program's newer edit
_SWAPPING = re.compile(rf"\.aesthete-swap-(?P<writer>{_WRITER})-(?P<name>[0-9a-f]{{12}})-(?P<expected>[0-9a-f]{{12}})-(?P<ours>[0-9a-f]{{12}})-"
                       r"(?:(?P<tag>[a-z0-9]{1,32})-)?[A-Za-z0-9_]+\.xmp\.tmp")


@dataclass(frozen=True)
class FileState:
    """A file as it was read: identity (device, inode), size, modification time and content hash."""

    device: int
    inode: int
    size: int
    mtime_ns: int
    sha256: str


@dataclass(frozen=True)
class Snapshot:
    """A file's bytes with the state they were read in; `dangling` for a symbolic link to nothing."""

    data: bytes
    state: FileState
    dangling: bool = False

    def same_as(self, other: Snapshot | None) -> bool:
        """Whether both are the same file with the same bytes (identity, size, mtime and content)."""
        return other is not None and self.state == other.state and self.data == other.data


def _state(info: os.stat_result, data: bytes) -> FileState:
    return FileState(info.st_dev, info.st_ino, len(data), info.st_mtime_ns, hashlib.sha256(data).hexdigest())


def read_snapshot(path: str | os.PathLike[str], limit: int) -> Snapshot | None:
    """The file's bytes (at most `limit` + 1) and state, read consistently; None when there is no file.

    Identity comes from the name itself (a symbolic link is its own identity); OSError when the
    file exists but cannot be read.
    """
    for _ in range(5):
        try:
            link = os.lstat(path)
        except FileNotFoundError:
            return None
        try:
            with open(path, "rb") as stream:
                before = os.fstat(stream.fileno())
                data = stream.read(limit + 1)
                after = os.fstat(stream.fileno())
        except FileNotFoundError:
            if stat.S_ISLNK(link.st_mode):
                return Snapshot(b"", _state(link, b""), dangling=True)
            continue  # replaced between lstat and open: read again
        if (before.st_size, before.st_mtime_ns) != (after.st_size, after.st_mtime_ns):
            continue  # written while we read: read again
        try:
            again = os.lstat(path)
        except FileNotFoundError:
            continue
        if (again.st_ino, again.st_dev) == (link.st_ino, link.st_dev):
            identity = link if stat.S_ISLNK(link.st_mode) else after
            return Snapshot(data, _state(identity, data))
    raise OSError(f"{os.fspath(path)} kept changing while it was read")


def write_temporary(folder: Path, data: bytes, mode: int, group: int | None = None) -> Path:
    """A fsynced temporary file in `folder` holding `data`, named `.aesthete-<process tag>-….xmp.tmp`
    (process_tag) so that a later run can tell it is a leftover of ours."""
    handle, name = tempfile.mkstemp(prefix=f"{TEMP_PREFIX}{process_tag()}-", suffix=".xmp.tmp", dir=folder)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        with contextlib.suppress(OSError):  # FAT and some FUSE file systems keep no modes (ENOSYS, EPERM)
            os.chmod(name, mode)
        if group is not None:
            with contextlib.suppress(OSError):  # not in that group: ours, as for any new file
                os.chown(name, -1, group)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(name)
        raise
    return Path(name)


def name_key(name: str) -> str:
    """12 hex digits standing for a file name inside a swap file's name (any name fits the limit)."""
    return hashlib.sha256(os.fsencode(name)).hexdigest()[:12]


def content_key(data: bytes) -> str:
    """12 hex digits standing for a file's bytes inside a swap file's name."""
    return hashlib.sha256(data).hexdigest()[:12]


def swap_name(temporary: Path, target: Path, expected: bytes, ours: bytes, tag: str = "") -> Path:
    """Rename our temporary file, right before it is swapped with `target`, to a name that says so and
    holds keys of the sidecar's name, of the bytes we expect to displace and of our own, and `tag`
    (up to 32 lowercase letters and digits: what the write set, for the merge): a run killed
    after the swap leaves the displaced file there, and the next run can tell (remove_leftovers)
    whether it is safe to put back, drop or keep, instead of deleting it as a temporary file."""
    tail = temporary.name.removeprefix(f"{TEMP_PREFIX}{process_tag()}-").removesuffix(".xmp.tmp")
    keys = f"{name_key(target.name)}-{content_key(expected)}-{content_key(ours)}" + (f"-{tag}" if tag else "")
    named = temporary.with_name(f"{TEMP_PREFIX}swap-{process_tag()}-{keys}-{tail}.xmp.tmp")
    os.rename(temporary, named)
    return named


def _renameat2() -> Any:
    library = ctypes.CDLL(None, use_errno=True)
    function = getattr(library, "renameat2", None)
    if function is not None:
        function.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    return function


_RENAMEAT2 = _renameat2() if sys.platform.startswith("linux") else None


def exchange(first: Path, second: Path) -> bool:
    """Swap two names atomically (Linux renameat2 RENAME_EXCHANGE); False where the system or the
    file system cannot, OSError for any other failure (e.g. `second` vanished)."""
    if _RENAMEAT2 is None:
        return False
    try:
        device = os.stat(first.parent).st_dev
    except OSError:
        device = -1
    if device in _exchange_unsupported:
        return False
    result = _RENAMEAT2(_AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second), _RENAME_EXCHANGE)
    if result == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.ENOTSUP):
        _exchange_unsupported.add(device)
        return False
    raise OSError(code, os.strerror(code), os.fspath(second))


def link_new(temporary: Path, target: Path) -> bool:
    """Give the temporary file the name `target` only if that name is free (never replaces a file);
    False when it is taken. File systems without hard links fall back to a checked rename."""
    try:
        os.link(temporary, target, follow_symlinks=False)
    except FileExistsError:
        return False
    except OSError as error:
        if error.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK):
            raise
        if os.path.lexists(target):
            return False
        os.rename(temporary, target)  # no hard links here: the name was free a moment ago
        return True
    os.unlink(temporary)
    return True


def same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """Whether two paths name one file or folder (device and inode: a link, a bind mount, another
    spelling); False when either cannot be examined."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def sync_folder(folder: str | os.PathLike[str]) -> None:
    """Flush a folder's entries (a rename or an unlink) to disk, where the system allows it."""
    with contextlib.suppress(OSError):
        handle = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            os.fsync(handle)
        finally:
            os.close(handle)


@contextlib.contextmanager
def folder_lock(folder: str | os.PathLike[str]) -> Iterator[None]:
    """Hold an exclusive lock on `folder` (flock on the folder itself) for the block; other Aesthete
    processes wait. Where the system has no such lock (Windows, some network file systems) the
    block runs unlocked. The flock belongs to this open descriptor alone (no other close() drops it)."""
    try:
        import fcntl
    except ImportError:
        yield
        return
    try:
        handle = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        yield
        return
    try:
        with contextlib.suppress(OSError):
            fcntl.flock(handle, fcntl.LOCK_EX)
        yield
    finally:
        os.close(handle)


def process_start(pid: int) -> int | None:
    """When the process `pid` started, in clock ticks since the machine booted (Linux's /proc); None
    where the system does not say or no such process is there."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stream:
            text = stream.read()
        # the command name in parentheses may hold spaces and parentheses: count fields after the last ")"
        return int(text[text.rindex(b")") + 1:].split()[19])
    except (OSError, ValueError, IndexError):
        return None


def pid_namespace() -> int | None:
    """The inode of this process's pid namespace (Linux); None where the system does not say. Pids
    mean something only within one: a container's writer is pid 1 or 2 there."""
    try:
        link = os.readlink("/proc/self/ns/pid")
        return int(link[link.index("[") + 1: link.index("]")])
    except (OSError, ValueError):
        return None


@functools.lru_cache(maxsize=1)
def _identity(pid: int) -> tuple[int, int | None, int | None]:
    """(pid, start, namespace) of this process, read once per pid (a forked child reads its own)."""
    start, namespace = process_start(pid), pid_namespace()
    return (pid, None, None) if start is None or namespace is None else (pid, start, namespace)


def process_tag() -> str:
    """This process as temporary file names record it: its pid, then `s` and its start time and `n` and
    its pid namespace where the system says both (process_start, pid_namespace), so a pid the system
    hands to a later process is told apart (read with tag_alive)."""
    pid, start, namespace = _identity(os.getpid())
    return f"{pid}" if start is None else f"{pid}s{start}n{namespace}"


def tag_alive(tag: str) -> bool | None:
    """Whether the process a name's writer tag (process_tag) names still runs; None for no such tag."""
    match = _WRITER_TAG.fullmatch(tag)
    if match is None:
        return None
    start, namespace = match.group("start"), match.group("ns")
    return process_alive(int(match.group("pid")), None if start is None else int(start), None if namespace is None else int(namespace))


def process_stamp() -> dict[str, int]:
    """This process as records name it: {"pid"} and, where the system says, {"pid_start", "pid_ns"}."""
    pid, start, namespace = _identity(os.getpid())
    return {"pid": pid} if start is None or namespace is None else {"pid": pid, "pid_start": start, "pid_ns": namespace}


def _whole(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def stamp_alive(record: Mapping[str, object]) -> bool:
    """Whether the process a record's stamp (process_stamp) names still runs; False without a pid."""
    pid = _whole(record.get("pid"))
    return pid is not None and process_alive(pid, _whole(record.get("pid_start")), _whole(record.get("pid_ns")))


def process_alive(pid: int, start: int | None = None, namespace: int | None = None) -> bool:
    """True when a process with this id exists on this machine (someone else's counts too) and, when
    the writer's start time and pid namespace are known and the namespace is ours, it is the one that
    started then (not a later process given a reused pid). A pid of another namespace says nothing
    here: it counts as alive when some process has that number (an attack saw a container's live
    writer, pid 1 there, judged dead when only start times were compared). A pid no system can have
    (0, negative, past the largest) is nobody's: an attack's huge pid in a leftover's name stopped
    every mark in its folder."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError, ValueError):
        return False
    except OSError:
        pass  # someone else's process: alive
    if start is None or namespace is None or namespace != pid_namespace():
        return True
    now = process_start(pid)
    return now is None or now == start


def remove_leftovers(
    folder: str | os.PathLike[str], older_than: float, merge: Callable[[bytes, bytes, str | None], bytes | None] | None = None
) -> list[Path]:
    """Clear this program's temporary files left in `folder` by a run that was killed: named
    `.aesthete-<pid>-….xmp.tmp` (or the older `.aesthete-….xmp.tmp`; the pid followed by
    `s<start>n<namespace>` since a reused pid kept a killed run's swap file hidden), regular files of ours, last changed before
    `older_than` (a time.time() value) and whose writing process is gone (or whose pid a later process
    now has); they are
    deleted. A swap file (`.aesthete-swap-…`, see swap_name) may hold what stood under a sidecar's
    name before a killed swap, another program's edit among it: `merge(theirs, ours, tag)` puts the
    fields the killed write set (its name's tag; None for a name without one) on top of it, as that
    write would have, and that goes under the sidecar's name; a swap file that cannot be settled so
    is kept under a visible name of its own (keep_aside). A swap file is judged however new it looks:
    the displaced file keeps the other program's time, which may lie ahead (a file synced from a
    device whose clock runs fast stayed hidden). Returns the temporary files cleared."""
    removed: list[Path] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        match = _LEFTOVER.fullmatch(entry.name) or _SWAPPING.fullmatch(entry.name)
        if match is None:
            continue
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        swapping = match.re is _SWAPPING
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.geteuid() or (info.st_mtime >= older_than and not swapping):
            continue
        if swapping and info.st_nlink > 1:
            continue  # a swap file of ours has one name (see _settling)
        if match.group("writer") is not None and tag_alive(match.group("writer")):
            continue
        if swapping:
            with _settling(Path(entry.path)) as ours_to_settle:
                if not ours_to_settle:
                    continue  # another run is settling it (two at once left a needless kept file)
                settled = _settle_swap(Path(entry.path), match.group("name"), match.group("expected"), match.group("ours"),
                                       match.group("tag"), entries, merge)
                if settled is LEAVE:
                    continue  # the next run tries again (a full disk while merging: an attack saw it kept aside for good)
                if settled is not True:
                    keep_aside(Path(entry.path), settled if isinstance(settled, Path) else None)
                    continue
                if _unlinked(entry.path):
                    removed.append(Path(entry.path))
            continue
        if _unlinked(entry.path):
            removed.append(Path(entry.path))
    return removed


def _unlinked(path: str) -> bool:
    try:
        os.unlink(path)
    except OSError:
        return False
    return True


@contextlib.contextmanager
def _settling(swap: Path) -> Iterator[bool]:
    """Hold an exclusive flock on a swap file while it is settled; False when another run holds it, the
    file is no longer at its name (settled and removed meanwhile) or has another name too (no swap
    file of ours). True, unlocked, where the system has no flock."""
    try:
        import fcntl
    except ImportError:
        yield True
        return
    try:
        handle = os.open(swap, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        yield False
        return
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            held, now = os.fstat(handle), os.lstat(swap)
        except OSError:
            yield False
            return
        # a swap file of ours has one name: a hard link named like one (to another sidecar, say) is
        # someone else's file, never read as what a killed swap displaced (an attack had another
        # sidecar's bytes put in place of this one's, and this one's deleted)
        yield (held.st_dev, held.st_ino) == (now.st_dev, now.st_ino) and held.st_nlink == 1
    finally:
        os.close(handle)


SETTLE_LIMIT = 64 * 1024 * 1024
"""Largest file read while settling a swap (a sidecar is far smaller; anything larger is left alone)."""


def _regular_bytes(path: Path) -> bytes | None:
    """The bytes of a regular file of at most SETTLE_LIMIT, read without following a link or waiting on a
    FIFO; None for anything else (an attack: a FIFO at a sidecar's name hung every later run in its
    folder, a link to /dev/zero ate the memory)."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    info = os.fstat(descriptor)
    if not stat.S_ISREG(info.st_mode) or info.st_size > SETTLE_LIMIT:
        os.close(descriptor)
        return None  # a folder too: opened, but no file to read
    with os.fdopen(descriptor, "rb") as stream:
        return stream.read(SETTLE_LIMIT + 1)


LEAVE = object()
"""_settle_swap's answer when the file system failed while settling: leave the swap file for the next run."""


def _settle_swap(leftover: Path, key: str, expected: str, ours: str, tag: str | None, entries: list[os.DirEntry[str]],
                 merge: Callable[[bytes, bytes, str | None], bytes | None] | None) -> object:
    """What a killed swap left, settled by the keys in its name; True when `leftover` may be deleted.

    - It holds our bytes (killed before the swap): our write never happened; delete it.
    - The sidecar still holds exactly our bytes (killed after the swap, nothing written since): the
      leftover is what we displaced. What we expected: delete it. Anything else is another program's
      save that landed just before the swap: the fields the write set (`tag`) go on top of it
      (`merge`), as the killed write would have done, and that stands under the sidecar's name. (Put
      back as it was, its older rating won the next sync over the user's newer mark; with all our
      fields on top, its own newer rating or label was lost: two attacks.)
    - The sidecar written since, and it already holds everything of the leftover with our fields on
      top (a second round of the same write, say): nothing of theirs is lost; delete it.
    - Otherwise (the sidecar gone or written since, or no merge): the sidecar's path (None when it is
      gone), for the caller to keep the leftover aside under a name that says whose it was.
    - The file system failing on the way (a full disk): LEAVE, for the next run to try again."""
    target = next((Path(e.path) for e in entries if not e.name.startswith(TEMP_PREFIX) and name_key(e.name) == key), None)
    try:
        theirs = _regular_bytes(leftover)
        if theirs is None:
            return LEAVE
        if content_key(theirs) == ours:
            return True
        if target is None:
            return None
        now = _regular_bytes(target)
        if now is None:  # not a regular file of a sidecar's size (a FIFO, a folder, /dev/zero): kept aside
            return target
        merged = merge(theirs, now, tag) if merge is not None else None
        if content_key(now) != ours:
            return True if merged is not None and merged == now else target
        if content_key(theirs) == expected:
            return True
        if merged is None:
            return target
        temporary = write_temporary(target.parent, merged, stat.S_IMODE(os.stat(target).st_mode))
        if _regular_bytes(target) != now:  # written meanwhile: leave it, keep theirs aside
            os.unlink(temporary)
            return target
        # named as a writer's swap file is: a kill after the exchange leaves what it displaced (a save
        # landing after the check) for the next run to settle, not to delete as a plain temporary file
        # (an attack lost a save so); the fields to put on top of it are the killed write's, `tag`
        temporary = swap_name(temporary, target, now, merged, tag or "")
        if not exchange(temporary, target):
            os.replace(temporary, target)  # no atomic exchange here: the file was `now` a moment ago
            sync_folder(target.parent)
            return True
        return _kept_in_place(temporary, target, now, merged)
    except OSError:
        return LEAVE


def _kept_in_place(displaced: Path, target: Path, now: bytes, merged: bytes) -> object:
    """After settling's exchange: True when it displaced what was checked (`now`). A save that landed
    between the check and the exchange goes back in place and the swap file is kept aside (the sidecar's
    path). Noticed in an attack round: settling replaced the file after checking it, and a save landing
    in between was lost."""
    if _regular_bytes(displaced) == now:
        os.unlink(displaced)
        sync_folder(target.parent)
        return True
    exchange(displaced, target)  # the newer save back under the sidecar's name
    if _regular_bytes(displaced) == merged:
        os.unlink(displaced)
    else:  # yet another save came in between: the newest goes back in place, the other is kept aside
        exchange(displaced, target)
        keep_aside(displaced, target)
    sync_folder(target.parent)
    return target


def keep_aside(leftover: Path, sidecar: Path | None = None) -> Path | None:
    """A swap file that could not be settled, renamed to `aesthete-kept-<time>-<sidecar>.xmp` beside the
    photos (its sidecar's name in it when known, cut to fit a file name's bytes): it may hold another
    program's edit that is nowhere else, so it is never deleted, never put back later (a kept file
    once resurrected stale bytes when the sidecar came to hold our bytes again), and the user can
    see it. The new path, or None when it could not be renamed (it stays as it is; never an error:
    an attack's 80-character CJK name, too long once kept, stopped every mark in its folder)."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime())
    unique = content_key(leftover.name.encode())[:8]
    whose = _cut_to_bytes(sidecar.stem, 120) if sidecar is not None else unique
    for name in (f"aesthete-kept-{stamp}-{whose}.xmp", f"aesthete-kept-{stamp}-{whose}-{unique}.xmp"):
        target = leftover.with_name(name)
        try:
            if os.path.lexists(target):
                continue
            os.rename(leftover, target)
        except OSError:
            continue
        log.warning("kept %s: what %s held when an interrupted write of ours was killed (another program's "
                    "edit may be in it)", target, sidecar if sidecar is not None else "a sidecar now gone")
        return target
    return None


def _cut_to_bytes(text: str, limit: int) -> str:
    """`text` cut at a character boundary so that its UTF-8 (file system) form takes at most `limit` bytes."""
    encoded = os.fsencode(text)
    if len(encoded) <= limit:
        return text
    return encoded[:limit].decode(sys.getfilesystemencoding(), errors="ignore")
