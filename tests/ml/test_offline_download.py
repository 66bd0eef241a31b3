"""A download with no connection to the model hub: one line saying so and what to do, no traceback,
no literal \\n (the command line runs in a subprocess, the hub pointed at a closed local port)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("command", [["score", "{image}"], ["judge", "pair", "{image}", "{image2}"]])
def test_an_offline_download_is_one_line_on_the_command_line(command: list[str], photo_paths: list[str], tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        endpoint = f"http://127.0.0.1:{probe.getsockname()[1]}"
    env = {**os.environ, "HF_ENDPOINT": endpoint, "HF_HOME": str(tmp_path / "hf"), "PYTHONPATH": str(REPO)}
    env.pop("HF_HUB_OFFLINE", None)
    args = [a.format(image=photo_paths[0], image2=photo_paths[1]) for a in command]
    done = subprocess.run(
        [sys.executable, "-c", "from aesthete_gui.cli import main; raise SystemExit(main())", *args, "--model", "Qwen/Qwen3-VL-2B-Instruct", "--download"],
        capture_output=True, text=True, env=env, cwd=REPO, timeout=300,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    [line] = [line for line in done.stderr.replace("\r", "\n").splitlines() if line.startswith("aesthete:")]
    assert line.startswith(f"aesthete: error: no connection to the model hub ({endpoint}): ")
    assert "Connection refused" in line and "download it on another machine and give its folder" in line
    assert "\\n" not in line
