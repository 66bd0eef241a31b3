"""kill -9 at random moments during `ingest`, `copy-picks` and `copy-picks --move` (the real CLI in a
subprocess), then a rerun: nothing lost, nothing paired with a stranger, no temporary file, no helper
process left. The moments are random but seeded: set AESTHETE_HARNESS_SEED to replay a failure
(every assertion message names the seed and the round)."""

from __future__ import annotations

import json
import os
import random
import time
from collections import Counter
from pathlib import Path

import pytest

from tests.robustness.file_safety import (
    cli_env,
    digest,
    end_processes,
    every_hash,
    foreign_pairs,
    has_temp_file,
    kill_during_work,
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

SEED = int(os.environ.get("AESTHETE_HARNESS_SEED") or random.SystemRandom().randrange(2**31))
INGEST_ROUNDS, COPY_ROUNDS, MOVE_ROUNDS = 8, 5, 8
UNITS = 5
FIGURES: Counter[str] = Counter()
"""Rounds, kills that landed while the command ran, and rounds a kill left work half-done, per command."""


def _where(round_: int) -> str:
    return f"(seed {SEED}, round {round_}; rerun with AESTHETE_HARNESS_SEED={SEED})"


def _calibrate(args: list[str], dest: Path, files: int) -> float:
    """Seconds from the first temporary copy to the last file's name in an undisturbed run: the span
    the kills fall in."""
    process = start_cli(args, cli_env())
    wait_for(lambda: process.poll() is not None or has_temp_file(dest), timeout=120, step=0.002)
    began = time.monotonic()
    wait_for(lambda: process.poll() is not None or _named(dest) >= files, timeout=120, step=0.002)
    span = time.monotonic() - began
    process.communicate()
    assert process.returncode == 0
    return max(span, 0.05)


def _named(root: Path) -> int:
    return sum(1 for p in root.rglob("*") if p.is_file() and not p.name.startswith("."))


def _half_done(dest: Path, shoot_hashes: set[str]) -> bool:
    """True when a kill left visible unfinished work: temporary files, or only part of the files."""
    if temp_files(dest):
        return True
    there = set(every_hash([dest]))
    return bool(there & shoot_hashes) and not shoot_hashes <= there


def test_kill_9_during_ingest_loses_nothing_and_a_rerun_completes(tmp_path: Path) -> None:
    rng = random.Random(SEED)
    calibration = make_card(tmp_path / "calibration" / "card", UNITS, seed=999)
    out = tmp_path / "calibration" / "dest"
    span = _calibrate(["ingest", "--quiet", "--no-import", str(calibration.folder), str(out)], out, len(calibration.owner))
    for round_ in range(INGEST_ROUNDS):
        where = _where(round_)
        base = tmp_path / f"ingest{round_}"
        shoot = make_card(base / "card", UNITS, seed=round_)
        card_before = snapshot(shoot.folder)
        dest, profile = base / "photos", base / "p.db"
        template = ["--template", "{name}{ext}"] if round_ % 2 else []
        args = ["--profile", str(profile), "ingest", "--quiet", "--no-import", *template, str(shoot.folder), str(dest)]
        env = cli_env()
        try:
            process = start_cli(args, env)
            FIGURES["ingest kills"] += kill_during_work(process, lambda d=dest: has_temp_file(d), rng.uniform(0, span))
            assert stray_processes(env["AESTHETE_HARNESS_RUN"]) == [], f"helpers outlived the killed ingest {where}"
            assert snapshot(shoot.folder) == card_before, f"the card changed {where}"
            assert set(named_hashes(dest)) <= set(shoot.owner), f"a half-written or foreign file under a real name {where}"
            assert foreign_pairs(dest, shoot.owner) == [], where
            FIGURES["ingest half-done"] += _half_done(dest, set(shoot.owner))
            rerun = run_cli(args, env)
            assert rerun.returncode == 0, f"{rerun.stderr} {where}"
        finally:
            end_processes(env["AESTHETE_HARNESS_RUN"])
        assert temp_files(dest) == [], where
        copies = every_hash([dest])
        assert all(copies[h] == 1 for h in shoot.owner), f"a file missing or copied twice {where}"
        assert foreign_pairs(dest, shoot.owner) == [] and units_split(dest, shoot.owner) == [], where
        FIGURES["ingest rounds"] += 1


def _library_paths(profile: Path) -> dict[str, str]:
    """Image path → the hash of the file there now (None when the file is missing)."""
    import sqlite3

    connection = sqlite3.connect(f"file:{profile}?mode=ro", uri=True, timeout=30)
    try:
        rows = [r[0] for r in connection.execute("SELECT path FROM images")]
    finally:
        connection.close()
    return {p: (digest(Path(p)) if Path(p).is_file() else None) for p in rows}


def _copy_round(tmp_path: Path, round_: int, move: bool, rng: random.Random, span: float) -> None:
    where = _where(round_)
    base = tmp_path / f"{'move' if move else 'copy'}{round_}"
    profile = base / "p.db"
    shoot = make_library(base / "shoot", profile, UNITS, seed=100 + round_)
    shoot_before = snapshot(shoot.folder)
    dest = base / "picks"
    dest.mkdir()
    orphan = dest / "IMG_0001.xmp"  # someone else's sidecar, paired with nothing
    orphan.write_text("<x:xmpmeta xmlns:x='adobe:ns:meta/'><!-- Rating 1, Exposure -3 --></x:xmpmeta>\n")
    orphan_bytes = digest(orphan)
    owners = {**shoot.owner, orphan_bytes: "orphan"}
    args = ["--profile", str(profile), "copy-picks", str(dest), *(["--move"] if move else [])]
    env = cli_env()
    try:
        process = start_cli(args, env)
        FIGURES[f"{'move' if move else 'copy'} kills"] += kill_during_work(process, lambda: has_temp_file(dest), rng.uniform(0, span))
        assert stray_processes(env["AESTHETE_HARNESS_RUN"]) == [], where
        assert lost_files(shoot, shoot.folder, dest) == [], f"bytes lost {where}"
        if not move:
            assert snapshot(shoot.folder) == shoot_before, f"a copy changed the originals {where}"
        assert set(named_hashes(dest)) <= set(owners), f"a half-written file under a real name {where}"
        assert foreign_pairs(dest, owners) == [], where
        for path, content in _library_paths(profile).items():
            assert content is not None, f"the library points at a missing file {path} {where}"
        FIGURES[f"{'move' if move else 'copy'} half-done"] += _half_done(dest, set(shoot.owner))
        rerun = run_cli(args, env)
        assert rerun.returncode == 0, f"{rerun.stderr} {where}"
    finally:
        end_processes(env["AESTHETE_HARNESS_RUN"])
    assert temp_files(dest, shoot.folder) == [], where
    assert orphan.is_file() and digest(orphan) == orphan_bytes, f"the orphan sidecar was touched {where}"
    copies = every_hash([dest])
    assert all(copies[h] == 1 for h in shoot.owner), f"a picked file missing or there twice {where}"
    assert foreign_pairs(dest, owners) == [] and units_split(dest, shoot.owner) == [], where
    if move:
        assert [p.name for p in shoot.folder.rglob("*") if p.is_file() and p.suffix != ".MOV"] == [], where
        for path, content in _library_paths(profile).items():
            assert Path(path).parent == dest and content in shoot.owner, f"{path} {where}"
    else:
        assert snapshot(shoot.folder) == shoot_before, where
    FIGURES[f"{'move' if move else 'copy'} rounds"] += 1


@pytest.mark.parametrize("move", [False, True], ids=["copy", "move"])
def test_kill_9_during_copy_picks_loses_nothing_and_a_rerun_completes(tmp_path: Path, move: bool) -> None:
    rng = random.Random(SEED + move)
    profile = tmp_path / "calibration" / "p.db"
    calibration = make_library(tmp_path / "calibration" / "shoot", profile, UNITS, seed=998)
    out = tmp_path / "calibration" / "out"
    span = _calibrate(["--profile", str(profile), "copy-picks", str(out), *(["--move"] if move else [])], out,
                      len(calibration.owner))  # fmt: skip
    for round_ in range(MOVE_ROUNDS if move else COPY_ROUNDS):
        _copy_round(tmp_path, round_, move, rng, span)
    print(json.dumps({"seed": SEED, **FIGURES}))
