"""The install's disk-space check: a clear one-line refusal before pip fills the disk, silence otherwise."""

from __future__ import annotations

import subprocess
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "packaging" / "disk-space.sh"


def run_check(tmp_path: Path, free_kb: int) -> subprocess.CompletedProcess[str]:
    """Runs the check on tmp_path/.venv with a `df` that reports `free_kb` kilobytes available."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    fake_df = bin_dir / "df"
    fake_df.write_text(
        "#!/bin/sh\n"
        "echo 'Filesystem 1024-blocks Used Available Capacity Mounted on'\n"
        f"echo '/dev/test 999999999 1 {free_kb} 1% /'\n"
    )
    fake_df.chmod(0o755)
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin"}
    return subprocess.run(["sh", str(SCRIPT), str(tmp_path / ".venv")], capture_output=True, text=True, env=env)


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
