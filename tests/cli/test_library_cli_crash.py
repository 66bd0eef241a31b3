"""`aesthete import` killed with SIGKILL or interrupted with Ctrl-C mid-way, then run again."""

from __future__ import annotations

import contextlib
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from aesthete_gui.cli import main
from aesthete_gui.store import open_profile
from tests.services.library_images import write_jpeg

REPO = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-c", "from aesthete_gui.cli import main; raise SystemExit(main())"]
COUNT = 150


@pytest.fixture(scope="module")
def big_shoot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("big_shoot")
    for n in range(COUNT):
        write_jpeg(folder / f"IMG_{n:04d}.jpg", seed=n, size=(160, 120))
    return folder


def _rows(profile: Path) -> int:
    try:
        conn = sqlite3.connect(f"file:{profile}?mode=ro", uri=True, timeout=5)
    except sqlite3.Error:
        return 0
    try:
        return int(conn.execute("SELECT COUNT(*) FROM images").fetchone()[0])
    except sqlite3.Error:
        return 0
    finally:
        conn.close()


def _start_import(profile: Path, folder: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*CLI, "--profile", str(profile), "import", "--quiet", "--workers", "2", str(folder)],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )  # fmt: skip


def _wait_for_first_batch(process: subprocess.Popen[str], profile: Path) -> int:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        rows = _rows(profile) if profile.exists() else 0
        if rows >= 16:
            return rows
        time.sleep(0.01)
    raise AssertionError(f"no batch was committed while the import ran (exit {process.poll()})")


def _check_profile_after(profile: Path) -> int:
    opened = open_profile(profile)
    try:
        assert opened.integrity_check() == "ok"
        duplicates = opened.conn.execute(
            "SELECT COUNT(*) FROM (SELECT content_hash FROM images GROUP BY content_hash HAVING COUNT(*) > 1)"
        ).fetchone()[0]
        assert duplicates == 0
        assert opened.catalog.images(status="missing") == [] and opened.catalog.images(status="error") == []
        return opened.catalog.image_count()
    finally:
        opened.close()


@pytest.mark.slow
def test_kill_9_during_import_leaves_a_valid_profile_and_a_rerun_completes(
    tmp_path: Path, big_shoot: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    profile = tmp_path / "p.db"
    process = _start_import(profile, big_shoot)
    try:
        _wait_for_first_batch(process, profile)
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
    finally:
        with contextlib.suppress(ProcessLookupError):  # the pool workers this test started
            os.killpg(process.pid, signal.SIGKILL)
    assert process.returncode == -signal.SIGKILL
    kept = _check_profile_after(profile)
    assert 16 <= kept < COUNT, "the kill must land while the import is running"
    assert main(["--profile", str(profile), "import", "--quiet", "--json", str(big_shoot)]) == 0
    summary = capsys.readouterr().out
    assert f'"unchanged": {kept}' in summary
    assert _check_profile_after(profile) == COUNT
    statuses = [run.status for run in open_profile(profile).runs.all("import")]
    assert statuses == ["interrupted", "done"]  # the killed run is not left looking alive


@pytest.mark.slow
def test_ctrl_c_cancels_cleanly_and_a_rerun_completes(tmp_path: Path, big_shoot: Path) -> None:
    profile = tmp_path / "p.db"
    process = _start_import(profile, big_shoot)
    try:
        _wait_for_first_batch(process, profile)
        os.killpg(process.pid, signal.SIGINT)  # what a terminal sends to the whole job on Ctrl-C
        _, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert process.returncode == 130, err
    assert "cancelled" in err
    kept = _check_profile_after(profile)
    assert 16 <= kept <= COUNT
    rerun = subprocess.run([*CLI, "--profile", str(profile), "import", "--quiet", str(big_shoot)],
                           cwd=REPO, capture_output=True, text=True, timeout=300)  # fmt: skip
    assert rerun.returncode == 0, rerun.stderr
    assert f"{kept} unchanged" in rerun.stdout
    assert _check_profile_after(profile) == COUNT


WINDING_DOWN = """
import os, signal, threading, time
from aesthete_gui.cli.common import ctrl_c_cancels
from aesthete_gui.jobs import CancelToken

token = CancelToken()
with ctrl_c_cancels(token):
    os.kill(os.getpid(), signal.SIGINT)  # the first Ctrl-C: the job stops cleanly
    time.sleep(0.2)
print("job stopped", flush=True)
threading.Thread(target=time.sleep, args=(30,)).start()  # the wind-down: workers joined at exit
os.kill(os.getpid(), signal.SIGINT)  # the second Ctrl-C, after the job, while the program winds down
"""


def test_a_second_ctrl_c_while_a_cancelled_command_winds_down_stops_it_quietly() -> None:
    """A trial saw "Exception ignored" and a traceback: the second Ctrl-C came after the job had
    stopped, while the interpreter joined the worker threads, and raised there."""
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-c", WINDING_DOWN], capture_output=True, text=True, timeout=60)
    assert time.monotonic() - started < 20  # not the 30 s of the wind-down
    assert done.returncode == 130
    assert done.stdout == "job stopped\n"
    assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr
    assert done.stderr.endswith("aesthete: interrupted\n")


def test_ctrl_c_while_the_command_line_is_still_read_gives_no_traceback(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # an attack: Ctrl-C in the first second (the parser being built) printed a KeyboardInterrupt traceback
    import aesthete_gui.cli as cli

    def interrupted() -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "build_parser", interrupted)
    assert main(["images"]) == 130
    assert capsys.readouterr().err == "aesthete: interrupted\n"
