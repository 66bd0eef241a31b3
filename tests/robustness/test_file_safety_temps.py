"""Temporary files of a live copy are never taken for leftovers, whatever their process id says: an
ingest in another pid namespace (a Flatpak or container beside the host) or on another machine
(a library on a NAS) names its temporary files with a pid that means nothing here. The lock the
copying process holds on each is what tells; the real CLI is run beside such a file."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from PIL import Image

from tests.robustness.file_safety import REPO, cli_env, run_cli

HOLD = (
    "import fcntl, os, sys, time\n"
    "fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644); os.write(fd, b'a live copy, half done')\n"
    "fcntl.flock(fd, fcntl.LOCK_EX); print('ready', flush=True); time.sleep(600)\n"
)


def _finished_pid() -> int:
    return int(subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True).stdout)


def test_a_live_copys_temporary_file_is_kept_and_a_leftover_is_removed_whatever_the_pids_say(tmp_path: Path) -> None:
    card, dest = tmp_path / "card", tmp_path / "library"
    card.mkdir()
    dest.mkdir()
    Image.new("RGB", (32, 24), (9, 99, 199)).save(card / "IMG_0001.JPG")
    live = dest / f".aesthete-ingest-{_finished_pid()}-live0001.part"  # its pid is no process here
    leftover = dest / f".aesthete-copy-{os.getpid()}-left0001.part"  # its pid is alive, nobody holds it
    leftover.write_bytes(b"a killed copy")
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(live)], cwd=REPO, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        args = ["ingest", "--no-import", "--quiet", "--template", "{name}{ext}", str(card), str(dest)]
        result = run_cli(args, cli_env())
        assert result.returncode == 0, result.stdout + result.stderr
        assert live.read_bytes() == b"a live copy, half done" and not leftover.exists()
    finally:
        holder.kill()
        holder.wait()
    Image.new("RGB", (32, 24), (199, 99, 9)).save(card / "IMG_0002.JPG")
    assert run_cli(args, cli_env()).returncode == 0
    assert not live.exists()  # its process ended without finishing: a leftover now
    assert sorted(p.name for p in dest.iterdir()) == [".aesthete-ingest.jsonl", "IMG_0001.JPG", "IMG_0002.JPG"]
