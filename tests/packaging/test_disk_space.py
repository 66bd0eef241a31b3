"""The install's disk-space check: a clear one-line refusal before pip fills the disk, silence otherwise."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "packaging" / "disk-space.sh"


def run_check(tmp_path: Path, free_kb: int | None, venv: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Runs the check on `venv` (tmp_path/.venv) with a Python that reports `free_kb` kilobytes free
    (None: the real interpreter, which reads the real disk)."""
    python = sys.executable
    if free_kb is not None:
        fake = tmp_path / "fake-python"
        fake.write_text(f"#!/bin/sh\necho {free_kb}\n")
        fake.chmod(0o755)
        python = str(fake)
    return subprocess.run(["sh", str(SCRIPT), str(venv or tmp_path / ".venv"), python], capture_output=True, text=True)


def test_refuses_in_one_line_when_the_disk_cannot_hold_the_install(tmp_path: Path) -> None:
    result = run_check(tmp_path, free_kb=3 * 1024 * 1024)
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert "3.0 GB free" in lines[0] and "8 GB needed" in lines[0]


def test_passes_silently_with_room(tmp_path: Path) -> None:
    result = run_check(tmp_path, free_kb=20 * 1024 * 1024)
    assert result.returncode == 0 and not result.stderr


def test_an_environment_that_already_has_torch_needs_no_room(tmp_path: Path) -> None:
    torch_dir = tmp_path / ".venv" / "lib" / "python3.11" / "site-packages" / "torch"
    torch_dir.mkdir(parents=True)
    (torch_dir / "__init__.py").write_text("")
    result = run_check(tmp_path, free_kb=1024)
    assert result.returncode == 0 and not result.stderr


def test_the_free_space_is_read_by_python_on_the_real_disk_even_under_a_folder_with_spaces(tmp_path: Path) -> None:
    """An attack: df's columns shift when a file system's name holds a space (a network share), and the
    check read "0.0 GB free" on a share with 920 GB free. Python's disk_usage has no columns to misread."""
    import shutil

    folder = tmp_path / "Photo Share" / "aesthete"
    folder.mkdir(parents=True)
    result = run_check(tmp_path, None, venv=folder / ".venv")
    enough = shutil.disk_usage(folder).free >= 8 * 1024**3
    assert result.returncode == (0 if enough else 1), result.stderr
    assert ("GB free where" in result.stderr) == (not enough)
    missing = subprocess.run(["sh", str(SCRIPT)], capture_output=True, text=True)
    assert missing.returncode != 0 and "usage: disk-space.sh VENV_DIR" in missing.stderr
