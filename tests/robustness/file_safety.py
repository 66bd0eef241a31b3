"""Shared helpers of the file-safety harness (issue 19): build cards and libraries, drive the real CLI in
subprocesses, kill it at random moments, and check what it left behind.

Every check is about the files themselves: `snapshot` hashes a tree, `lost_files` says which source
bytes are nowhere any more, `foreign_pairs` finds a destination stem that pairs files of two
different photo units (or a unit's file with one that was already there), `temp_files` lists
temporary files left over, and `stray_processes` finds helper processes (pool workers, the fork
server, the resource tracker) still alive after the process that started them was killed: each CLI
run carries a marker in its environment, which every child inherits, so `/proc/<pid>/environ` says
whose helper a process is. The sidecar harness reuses these helpers.
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
import subprocess
import sys
import time
import uuid
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import xxhash
from PIL import Image

from aesthete_gui.imaging.photo_units import stem_key

REPO = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-c", "from aesthete_gui.cli import main; raise SystemExit(main())"]
MARKER = "AESTHETE_HARNESS_RUN"
TEMP_PATTERNS = (".part", ".tmp")


def digest(path: Path) -> str:
    """XXH3-128 of a file's bytes."""
    return xxhash.xxh3_128_hexdigest(path.read_bytes())


def snapshot(root: Path) -> dict[str, str]:
    """Every regular file under `root` (hidden ones included) by relative path → hash."""
    found = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and not path.is_symlink():
            found[path.relative_to(root).as_posix()] = digest(path)
    return found


# -- building cards and shoots -------------------------------------------------------------------
@dataclass
class Shoot:
    """Files written for a test, by hash → (unit id, path when written); the units' names."""

    folder: Path
    units: dict[str, list[Path]] = field(default_factory=dict)
    owner: dict[str, str] = field(default_factory=dict)
    origin: dict[str, Path] = field(default_factory=dict)

    def add(self, unit: str, path: Path) -> None:
        self.units.setdefault(unit, []).append(path)
        self.owner[digest(path)] = unit
        self.origin[digest(path)] = path

    @property
    def hashes(self) -> Counter[str]:
        """Each written file's hash (every one is unique by construction)."""
        return Counter(self.owner)


def _jpeg(path: Path, seed: int, padding: int) -> None:
    rng = random.Random(seed)
    colour = (rng.randrange(256), rng.randrange(256), rng.randrange(256))
    Image.new("RGB", (48, 32), colour).save(path, "JPEG", quality=80)
    with open(path, "ab") as handle:
        handle.write(rng.randbytes(padding))


def _sidecar(path: Path, unit: str, stars: int) -> None:
    path.write_text(
        '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
        f'<rdf:Description xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:Rating="{stars}" '
        f'xmp:Label="{unit}"/></rdf:RDF></x:xmpmeta>\n',
        encoding="utf-8",
    )


def make_card(folder: Path, count: int, *, seed: int = 0, padding: int = 100_000, tag: str = "") -> Shoot:
    """A card: DCIM/100TEST/IMG_0001.JPG … with, in turn, a RAW partner and `IMG.xmp`, a `IMG.JPG.xmp`,
    nothing; every file's bytes unique (the seed and `tag` tell cards apart), plus a clip."""
    dcim = folder / "DCIM" / "100TEST"
    dcim.mkdir(parents=True)
    shoot = Shoot(folder)
    for n in range(1, count + 1):
        unit = f"{tag}{n}"
        jpeg = dcim / f"IMG_{n:04d}.JPG"
        _jpeg(jpeg, seed * 1000 + n, padding)
        shoot.add(unit, jpeg)
        if n % 3 == 1:
            raw = dcim / f"IMG_{n:04d}.CR2"
            raw.write_bytes(b"II*\x00" + random.Random(seed * 7919 + n).randbytes(padding))
            shoot.add(unit, raw)
            _sidecar(dcim / f"IMG_{n:04d}.xmp", unit, n % 6)
            shoot.add(unit, dcim / f"IMG_{n:04d}.xmp")
        elif n % 3 == 2:
            _sidecar(dcim / f"IMG_{n:04d}.JPG.xmp", unit, n % 6)
            shoot.add(unit, dcim / f"IMG_{n:04d}.JPG.xmp")
    (dcim / "MVI_0001.MOV").write_bytes(b"clip " + tag.encode())
    return shoot


def make_library(folder: Path, profile: Path, count: int, *, seed: int = 0, padding: int = 100_000) -> Shoot:
    """A shoot folder shaped like `make_card` whose photographs are in the profile at `profile`, every
    JPEG picked (the RAW partners are in the library too, not picked)."""
    from aesthete_gui.store import ImageUpdate, open_profile

    shoot = make_card(folder, count, seed=seed, padding=padding)
    photos = sorted(p for paths in shoot.units.values() for p in paths if p.suffix in (".JPG", ".CR2"))
    library = open_profile(profile)
    try:
        ids = library.catalog.write_images([ImageUpdate(path=str(p), folder_id=None, status="ok") for p in photos])
        for image_id, path in zip(ids, photos, strict=True):
            if path.suffix == ".JPG":
                library.marks.set(image_id, stars=4, flag="pick")
    finally:
        library.close()
    return shoot


@contextlib.contextmanager
def disk_with_few_files(folder: Path, files: int):
    """`folder` as a tmpfs that holds at most `files` files and folders (needs root): creating one more
    fails with ENOSPC, the kernel's own "disk full", at a moment a test can predict. `grow(n)` gives it
    room for `n` (space freed for a rerun)."""
    folder.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", f"size=64m,nr_inodes={files}", "tmpfs",
                                            str(folder)], capture_output=True).returncode != 0:  # fmt: skip
        import pytest

        pytest.skip("a small tmpfs needs root and mount permission")

    def grow(more: int) -> None:
        subprocess.run(["mount", "-o", f"remount,nr_inodes={more}", str(folder)], check=True, capture_output=True)

    try:
        yield grow
    finally:
        subprocess.run(["umount", str(folder)], capture_output=True)


# -- running the CLI -----------------------------------------------------------------------------
def cli_env(marker: str | None = None) -> dict[str, str]:
    """The environment of a harness CLI run: the usual one plus a marker its helper processes inherit."""
    env = dict(os.environ)
    env[MARKER] = marker or uuid.uuid4().hex
    env.pop("AESTHETE_PROFILE", None)
    return env


def run_cli(args: list[str], env: dict[str, str], timeout: float = 180) -> subprocess.CompletedProcess[str]:
    """Run `aesthete ARGS` to its end."""
    return subprocess.run([*CLI, *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=timeout, check=False)


def start_cli(args: list[str], env: dict[str, str]) -> subprocess.Popen[str]:
    """Start `aesthete ARGS` (its own session, so a test can signal it alone)."""
    return subprocess.Popen([*CLI, *args], cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)  # fmt: skip


def kill_after(process: subprocess.Popen[str], delay: float) -> bool:
    """SIGKILL `process` (only it, not its helpers) after `delay` seconds; True when it was still running."""
    deadline = time.monotonic() + delay
    while time.monotonic() < deadline:
        if process.poll() is not None:
            process.communicate()
            return False
        time.sleep(0.005)
    with contextlib.suppress(ProcessLookupError):
        os.kill(process.pid, signal.SIGKILL)
    process.communicate()
    return process.returncode == -signal.SIGKILL


def kill_during_work(process: subprocess.Popen[str], started_work, extra: float, timeout: float = 60.0) -> bool:
    """SIGKILL `process` `extra` seconds after `started_work()` first holds (the command has begun
    writing: a temporary file appeared), so the kill lands inside the work rather than in Python's
    start-up; True when it was still running then."""
    wait_for(lambda: process.poll() is not None or started_work(), timeout=timeout, step=0.002)
    return kill_after(process, extra)


def has_temp_file(root: Path) -> bool:
    """True while a temporary copy exists anywhere under `root`."""
    try:
        return any(p.name.endswith(".part") for p in root.rglob(".aesthete-*"))
    except OSError:
        return False


def wait_for(predicate, timeout: float = 60.0, step: float = 0.005) -> bool:
    """Poll `predicate` until it is true (True) or `timeout` passes (False)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(step)
    return False


# -- what a run left behind ----------------------------------------------------------------------
def temp_files(*roots: Path) -> list[str]:
    """Temporary files under the roots: `.part` copies and `.aesthete-*` temporary names."""
    found = []
    for root in roots:
        if not root.exists():
            continue
        for path in root.rglob("*"):
            name = path.name
            if name.endswith(".part") or (name.startswith(".aesthete-") and name.endswith(TEMP_PATTERNS)):
                found.append(str(path))
    return sorted(found)


def lost_files(shoot: Shoot, *roots: Path) -> list[str]:
    """Source files whose bytes are in none of the roots any more (each hash looked for anywhere)."""
    present = {digest(p) for root in roots if root.exists() for p in root.rglob("*") if p.is_file()}
    return sorted(str(path) for h, path in shoot.origin.items() if h not in present)


def foreign_pairs(folder_root: Path, owners: dict[str, str]) -> list[str]:
    """Destination stems whose files come from more than one unit (a file not from any known unit
    counts as its own unit): a photograph paired with someone else's sidecar or partner."""
    problems: list[str] = []
    if not folder_root.exists():
        return problems
    folders = [folder_root, *[p for p in folder_root.rglob("*") if p.is_dir()]]
    for folder in folders:
        groups: dict[str, set[str]] = {}
        for path in folder.iterdir():
            if path.is_file() and not path.name.startswith("."):
                groups.setdefault(stem_key(path.name), set()).add(owners.get(digest(path), f"unknown:{path.name}"))
        problems += [f"{folder}/{stem}: {sorted(units)}" for stem, units in groups.items() if len(units) > 1]
    return problems


def units_split(folder_root: Path, owners: dict[str, str]) -> list[str]:
    """Units whose files landed under more than one destination stem (a partner or sidecar apart)."""
    where: dict[str, set[str]] = {}
    for path in folder_root.rglob("*"):
        if path.is_file() and not path.name.startswith("."):
            unit = owners.get(digest(path))
            if unit is not None:
                where.setdefault(unit, set()).add(f"{path.parent}/{stem_key(path.name)}")
    return sorted(f"{u}: {sorted(s)}" for u, s in where.items() if len(s) > 1)


def _environ_has(pid: int, needle: bytes) -> bool:
    try:
        return needle in Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return False


def _is_zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1].startswith("Z")
    except (OSError, IndexError):
        return True


def stray_processes(marker: str, timeout: float = 6.0) -> list[str]:
    """Processes started by a harness run with `marker` still alive after `timeout` seconds (pid and
    command line); an empty list as soon as none is left."""
    needle = f"{MARKER}={marker}".encode()

    def alive() -> list[str]:
        found = []
        for entry in os.listdir("/proc"):
            if entry.isdigit() and int(entry) != os.getpid() and _environ_has(int(entry), needle) and not _is_zombie(int(entry)):
                with contextlib.suppress(OSError):
                    command = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ")[:120]
                    found.append(f"{entry}: {command!r}")
        return found

    wait_for(lambda: not alive(), timeout=timeout, step=0.1)
    return alive()


def end_processes(marker: str) -> None:
    """Kill whatever a failed test left running with `marker` (so one failure does not leak helpers)."""
    needle = f"{MARKER}={marker}".encode()
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid() and _environ_has(int(entry), needle):
            with contextlib.suppress(OSError):
                os.kill(int(entry), signal.SIGKILL)


def named_hashes(root: Path) -> Counter[str]:
    """The hashes of the files under `root` that have a real name (hidden temporary files and records excluded)."""
    if not root.exists():
        return Counter()
    return Counter(digest(p) for p in root.rglob("*") if p.is_file() and not p.name.startswith("."))


def every_hash(roots: Iterable[Path]) -> Counter[str]:
    """How many times each file's bytes appear under the roots."""
    return Counter(digest(p) for root in roots if root.exists() for p in root.rglob("*") if p.is_file())
