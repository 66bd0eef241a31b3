"""The real CLI against races and failing file systems: two ingests at once with the same file names, a
disk that fills up mid-run, a read-only destination, a card file vanishing mid-run, and helper
processes outliving a killed import. After each: nothing lost, no foreign pairing, no temporary
file, no stray process, and one clear line for what went wrong."""

from __future__ import annotations

import errno
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.robustness.file_safety import (
    CLI,
    REPO,
    cli_env,
    digest,
    disk_with_few_files,
    end_processes,
    every_hash,
    foreign_pairs,
    has_temp_file,
    lost_files,
    make_card,
    make_library,
    named_hashes,
    run_cli,
    snapshot,
    start_cli,
    stray_processes,
    temp_files,
    units_split,
    wait_for,
)
from tests.robustness.fs_faults import read_only_folder, small_disk


def _complete_units(dest: Path, owners: dict[str, str], units: dict[str, list[Path]]) -> list[str]:
    """Units of which only some files are in `dest` (a photograph there without its sidecar or partner)."""
    there = set(named_hashes(dest))
    partial = []
    for unit, paths in units.items():
        hashes = {h for h, u in owners.items() if u == unit}
        if hashes & there and not hashes <= there:
            partial.append(f"{unit}: {sorted(p.name for p in paths)}")
    return partial


@pytest.mark.parametrize("template", ["{name}{ext}", None], ids=["card-names", "default-template"])
def test_two_ingests_at_once_with_the_same_names_keep_every_photo(tmp_path: Path, template: str | None) -> None:
    dest = tmp_path / "library"
    cards = [make_card(tmp_path / f"card{n}", 6, seed=n + 1, tag="ab"[n]) for n in range(2)]
    owners = {**cards[0].owner, **cards[1].owner}
    extra = ["--template", template] if template else []
    env = cli_env()
    try:
        runs = [start_cli(["ingest", "--quiet", "--no-import", *extra, str(c.folder), str(dest)], env) for c in cards]
        outputs = [r.communicate(timeout=120) for r in runs]
    finally:
        end_processes(env["AESTHETE_HARNESS_RUN"])
    assert [r.returncode for r in runs] == [0, 0], outputs
    copies = every_hash([dest])
    assert all(copies[h] == 1 for h in owners), "a photograph or sidecar of one card is missing or there twice"
    assert foreign_pairs(dest, owners) == [] and units_split(dest, owners) == []
    assert temp_files(dest) == []
    for card in cards:  # each card again: every file is recognised by its bytes
        again = run_cli(["ingest", "--no-import", "--quiet", *extra, str(card.folder), str(dest)], env)
        assert again.returncode == 0 and "0 copied and verified" in again.stdout, again.stdout + again.stderr
        assert "8 already there (same bytes)" in again.stdout  # 6 JPEGs and 2 RAW partners
    assert every_hash([dest]) == copies


def _fill(folder: Path) -> Path:
    """Fill the file system of `folder` to the last byte (another program taking the space)."""
    filler = folder / "filler.bin"
    with open(filler, "wb") as handle:
        try:
            while True:
                handle.write(b"\0" * (64 * 1024))
                handle.flush()
        except OSError as error:
            assert error.errno == errno.ENOSPC
    return filler


def test_a_full_disk_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    card = make_card(tmp_path / "card", 4)
    profile = tmp_path / "p.db"
    shoot = make_library(tmp_path / "shoot", profile, 3)
    env = cli_env()
    with small_disk(tmp_path / "disk", 1024) as disk:
        (disk / "picks").mkdir()
        _fill(disk)
        ingested = run_cli(["ingest", "--quiet", "--no-import", str(card.folder), str(disk / "library")], env)
        moved = run_cli(["--profile", str(profile), "copy-picks", str(disk / "picks"), "--move"], env)
        for result in (ingested, moved):
            assert result.returncode == 2, result.stdout + result.stderr
            assert result.stderr.startswith("aesthete: error: destination is full: ") and result.stderr.count("\n") == 1
            assert "No space left on device" not in result.stderr
        assert sorted(p.name for p in disk.rglob("*")) == ["filler.bin", "library", "picks"]
    assert lost_files(card, card.folder) == [] and lost_files(shoot, shoot.folder) == []


def test_a_disk_filling_up_mid_ingest_is_one_line_and_leaves_only_whole_units(tmp_path: Path) -> None:
    card = make_card(tmp_path / "card", 8)
    before = snapshot(card.folder)
    env = cli_env()
    with disk_with_few_files(tmp_path / "disk", 12) as grow:
        dest = tmp_path / "disk" / "library"
        args = ["ingest", "--quiet", "--no-import", str(card.folder), str(dest)]
        full = run_cli(args, env)
        assert full.returncode == 2, full.stdout + full.stderr
        assert full.stderr.startswith("aesthete: error: destination is full: ") and full.stderr.count("\n") == 1
        assert "No space left on device" not in full.stderr
        assert named_hashes(dest), "the disk filled before the first photograph: no mid-run failure tested"
        assert temp_files(dest) == [] and set(named_hashes(dest)) <= set(card.owner)
        assert _complete_units(dest, card.owner, card.units) == [] and foreign_pairs(dest, card.owner) == []
        grow(1000)  # space again: the rerun finishes the job
        rerun = run_cli(args, env)
        assert rerun.returncode == 0, rerun.stderr
        assert all(every_hash([dest])[h] == 1 for h in card.owner) and temp_files(dest) == []
    assert snapshot(card.folder) == before


def test_a_disk_filling_up_mid_move_is_one_line_and_loses_nothing(tmp_path: Path) -> None:
    profile = tmp_path / "p.db"
    shoot = make_library(tmp_path / "shoot", profile, 8)
    env = cli_env()
    with disk_with_few_files(tmp_path / "disk", 9) as grow:
        dest = tmp_path / "disk" / "picks"
        dest.mkdir()
        args = ["--profile", str(profile), "copy-picks", str(dest), "--move"]
        full = run_cli(args, env)
        assert full.returncode == 2 and "destination is full" in full.stderr, full.stdout + full.stderr
        assert full.stderr.count("\n") == 1 and "No space left on device" not in full.stderr
        assert named_hashes(dest), "the disk filled before the first photograph: no mid-run failure tested"
        assert lost_files(shoot, shoot.folder, dest) == [] and temp_files(dest, shoot.folder) == []
        assert _complete_units(dest, shoot.owner, shoot.units) == [] and foreign_pairs(dest, shoot.owner) == []
        grow(1000)
        rerun = run_cli(args, env)
        assert rerun.returncode == 0, rerun.stderr
        assert lost_files(shoot, dest) == [] and not list(shoot.folder.rglob("*.JPG"))


def test_a_read_only_destination_is_one_line_and_nothing_moves(tmp_path: Path) -> None:
    profile = tmp_path / "p.db"
    shoot = make_library(tmp_path / "shoot", profile, 3)
    before = snapshot(shoot.folder)
    locked = tmp_path / "locked"
    locked.mkdir()
    env = cli_env()
    with read_only_folder(locked) as view:
        moved = run_cli(["--profile", str(profile), "copy-picks", str(view), "--move"], env)
        ingested = run_cli(["ingest", "--quiet", "--no-import", str(shoot.folder), str(view)], env)
    for result in (moved, ingested):
        assert result.returncode == 2 and "destination is read-only" in result.stderr, result.stderr
        assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert list(locked.iterdir()) == [] and snapshot(shoot.folder) == before


def test_a_card_file_vanishing_mid_ingest_is_skipped_and_reported_and_the_rest_goes_on(tmp_path: Path) -> None:
    folder = tmp_path / "card"
    make_card(folder, 6)
    with open(folder / "DCIM" / "100TEST" / "IMG_0001.JPG", "ab") as handle:  # long to copy: the others vanish meanwhile
        handle.write(b"\1" * (48 << 20))
    card = _rescan(folder)
    kept = tmp_path / "kept"
    shutil.copytree(folder, kept)
    gone = sorted(folder.rglob("IMG_0004*"))
    dest = tmp_path / "library"
    args = ["ingest", "--quiet", "--no-import", "--template", "{name}{ext}", str(folder), str(dest)]
    env = cli_env()
    try:
        process = start_cli(args, env)
        assert wait_for(lambda: has_temp_file(dest) or process.poll() is not None)
        for path in gone:
            path.unlink()
        out, err = process.communicate(timeout=120)
    finally:
        end_processes(env["AESTHETE_HARNESS_RUN"])
    assert process.returncode == 1, out + err
    assert "IMG_0004.JPG: vanished before it could be copied (card removed?); skipped, the rest went on" in err
    assert "8 photographs on the card: 6 copied and verified" in out  # the pair IMG_0004 vanished
    left = {p.name for p in folder.rglob("*") if p.is_file() and p.suffix != ".MOV"}
    assert {p.name for p in dest.iterdir() if not p.name.startswith(".")} == left
    assert temp_files(dest) == [] and foreign_pairs(dest, card.owner) == []
    for path in gone:  # the card is back: the rerun copies what was missed
        shutil.copy2(kept / path.relative_to(folder), path)
    rerun = run_cli(args, env)
    assert rerun.returncode == 0 and "6 already there" in rerun.stdout, rerun.stdout + rerun.stderr
    assert all(every_hash([dest])[h] == 1 for h in card.owner) and foreign_pairs(dest, card.owner) == []


def _rescan(folder: Path):
    """The card's files by unit again (after bytes were appended to one)."""
    from tests.robustness.file_safety import Shoot

    shoot = Shoot(folder)
    for path in sorted(folder.rglob("IMG_*")):
        shoot.add(path.name[4:8].lstrip("0"), path)
    return shoot


def test_helper_processes_end_when_a_killed_import_leaves_them(tmp_path: Path) -> None:
    from tests.services.library_images import write_jpeg

    shoot = tmp_path / "shoot"
    shoot.mkdir()
    for n in range(40):
        write_jpeg(shoot / f"IMG_{n:04d}.jpg", seed=n, size=(480, 360))
    env = cli_env()
    marker = env["AESTHETE_HARNESS_RUN"]
    process = subprocess.Popen([*CLI, "--profile", str(tmp_path / "p.db"), "import", "--quiet", "--workers", "2", str(shoot)],
                               cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)  # fmt: skip
    try:
        helpers = lambda: [p for p in _marked(marker) if p != process.pid]  # noqa: E731
        assert wait_for(lambda: len(helpers()) >= 4 or process.poll() is not None, timeout=120), "no pool started"
        assert process.poll() is None, "the import ended before it could be killed; give it more files"
        started = helpers()
        process.kill()
        process.wait()
        assert len(started) >= 4  # resource tracker, fork server, two workers
        assert stray_processes(marker) == []
    finally:
        end_processes(marker)


def _marked(marker: str) -> list[int]:
    import os

    needle = f"AESTHETE_HARNESS_RUN={marker}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            try:
                if needle in Path(f"/proc/{entry}/environ").read_bytes():
                    state = Path(f"/proc/{entry}/stat").read_text().split(") ", 1)[1][0]
                    if state != "Z":
                        found.append(int(entry))
            except OSError:
                continue
    return found


def test_a_spawned_pool_ends_with_its_parent(tmp_path: Path) -> None:
    """The initializer every Aesthete pool uses (training's spawn pool too) ends workers with their parent."""
    script = (
        "import multiprocessing, time\n"
        "from concurrent.futures import ProcessPoolExecutor\n"
        "from aesthete_gui.process_guard import exit_with_parent\n"
        "if __name__ == '__main__':\n"
        "    pool = ProcessPoolExecutor(2, mp_context=multiprocessing.get_context('spawn'), initializer=exit_with_parent)\n"
        "    futures = [pool.submit(time.sleep, 600) for _ in range(2)]\n"
        "    print('ready', flush=True)\n"
        "    time.sleep(600)\n"
    )
    path = tmp_path / "parent.py"
    path.write_text(script)
    env = cli_env()
    marker = env["AESTHETE_HARNESS_RUN"]
    process = subprocess.Popen([sys.executable, str(path)], cwd=REPO, env=env, stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None and process.stdout.readline().strip() == "ready"
        assert wait_for(lambda: len([p for p in _marked(marker) if p != process.pid]) >= 2, timeout=60)
        process.kill()
        process.wait()
        assert stray_processes(marker) == []
    finally:
        end_processes(marker)
    assert digest(path)  # the script is still there: nothing else touched


def test_three_ingests_of_one_card_at_once_account_for_every_photograph(tmp_path: Path) -> None:
    # an attack: three ingests of a 30-photograph card into one folder each said "10 copied and verified,
    # 0 already there", leaving 20 unaccounted for (the files themselves were right)
    import re

    card = make_card(tmp_path / "card", 6, seed=5)
    dest = tmp_path / "library"
    env = cli_env()
    try:
        runs = [start_cli(["ingest", "--quiet", "--no-import", str(card.folder), str(dest)], env) for _ in range(3)]
        outputs = [r.communicate(timeout=120) for r in runs]
    finally:
        end_processes(env["AESTHETE_HARNESS_RUN"])
    assert [r.returncode for r in runs] == [0, 0, 0], outputs
    counts = []
    for out, err in outputs:
        found = re.search(r"(\d+) copied and verified, (\d+) already there", out)
        assert found is not None, out + err
        counts.append((int(found.group(1)), int(found.group(2))))
    assert all(copied + there == 8 for copied, there in counts), counts  # 6 JPEGs and 2 RAW partners, each run
    assert sum(copied for copied, _ in counts) == 8, counts
    assert all(n == 1 for n in every_hash([dest]).values()) and temp_files(dest) == []
