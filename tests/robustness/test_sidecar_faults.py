"""Sidecar fault harness: another program writing the same sidecars while Aesthete marks, and kill -9
at random moments of `sync-xmp`, batch `mark` and `export --format xmp` run as real processes.

Seeded (AESTHETE_FAULT_SEED, default 19); a failure names the seed and the round. The figures of a
run (rounds, overlaps, faults, lost) are printed and kept in docs/benchmarks.md ("File safety").
"""

from __future__ import annotations

import os
import random
import re
import sqlite3
import statistics
import subprocess
import sys
import time
from pathlib import Path

import pytest

from aesthete_gui.cli import main
from aesthete_gui.imaging import xmp
from aesthete_gui.imaging.xmp import read_sidecar, read_xmp_file
from aesthete_gui.services.library_marks import mark_image
from aesthete_gui.services.sidecar_sync import sidecar_view, sync_sidecars
from aesthete_gui.store import ImageUpdate, Profile, open_profile
from tests.robustness.sidecar_race import (
    ExifTool,
    OtherProgram,
    keywords_of,
    sidecar_text,
    temporary_files,
)

SEED = int(os.environ.get("AESTHETE_FAULT_SEED", "19"))
RACE_ROUNDS = 200
KILL_ROUNDS = 21
CLI = [sys.executable, "-c", "from aesthete_gui.cli import main; raise SystemExit(main())"]
LABELS = ["Red", "Yellow", "Green", "Blue", "Purple"]


def _shoot(folder: Path, count: int) -> list[Path]:
    """`count` stand-in RAW files, each with a sidecar the other program wrote (rating 1, a keyword)."""
    folder.mkdir()
    images = []
    for n in range(count):
        image = folder / f"IMG_{n:04d}.CR2"
        image.write_bytes(b"raw bytes, never opened for writing")
        (folder / f"IMG_{n:04d}.xmp").write_text(sidecar_text(1, f"kw-{n}"), encoding="utf-8")
        images.append(image)
    return images


def _registered(profile_path: Path, images: list[Path]) -> Profile:
    profile = open_profile(profile_path)
    profile.catalog.write_images([ImageUpdate(path=str(p), folder_id=None, status="ok") for p in images])
    sync_sidecars(profile)  # the profile takes the other program's ratings
    return profile


def _next(value: object, choices: list, rng: random.Random) -> object:
    return rng.choice([c for c in choices if c != value])


def test_another_program_editing_the_same_sidecars_loses_no_edit_and_no_mark(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(SEED)
    images = _shoot(tmp_path / "shoot", 4)
    profile = _registered(tmp_path / "race.db", images)
    ids = [profile.catalog.image_by_path(str(p)).id for p in images]  # type: ignore[union-attr]
    ours_retried: list[int] = []
    real_swap = xmp.swap_file

    def counting_swap(*args, **kwargs):  # type: ignore[no-untyped-def]  # a spy: how often our write met theirs
        result = real_swap(*args, **kwargs)
        ours_retried.append(result.attempts)
        return result

    monkeypatch.setattr(xmp, "swap_file", counting_swap)
    timings = []
    for _ in range(5):  # how long one mark takes here: the other program's writes are spread over it
        start = time.perf_counter()
        mark_image(profile, ids[0], label=_next(profile.marks.get(ids[0]).label, LABELS, rng), write_xmp=True)
        timings.append(time.perf_counter() - start)
    window = statistics.median(timings)
    ours_retried.clear()
    other, exiftool = OtherProgram(tmp_path), ExifTool()
    theirs_retried = 0
    try:
        for number in range(RACE_ROUNDS):
            where = f"seed {SEED}, round {number}"
            index = number % len(images)
            image, image_id, sidecar = images[index], ids[index], images[index].with_suffix(".xmp")
            mark = profile.marks.get(image_id)
            rating = rng.randrange(6) if number % 4 == 3 else None  # a rating edit in one round of four
            field = rng.choice(["label", "flag"] if rating is not None else ["label", "flag", "stars"])
            if field == "label":
                value: object = _next(mark.label, LABELS, rng)
            elif field == "flag":
                value = "pick" if mark.flag is None else None
            else:
                value = _next(mark.stars, list(range(6)), rng)
            keywords = [f"round-{number}", f"kw-{rng.randrange(10_000)}"]
            other.order(number, sidecar, keywords, rating, rng.uniform(0, 1.5 * window))
            mark_image(profile, image_id, **{field: value}, write_xmp=True)
            theirs_retried += other.done() > 1
            [tags] = exiftool.read(sidecar)
            assert keywords_of(tags) == keywords, f"{where}: the other program's keywords were lost: {tags}"
            if field == "label":
                assert tags.get("Label") == value, f"{where}: our label was lost: {tags}"
            elif field == "flag":
                assert tags.get("PickLabel") == (3 if value == "pick" else None), f"{where}: our flag was lost: {tags}"
            else:
                assert tags.get("Rating") == value, f"{where}: our stars were lost: {tags}"
            if rating is not None:
                assert tags.get("Rating") == rating, f"{where}: the other program's rating was lost: {tags}"
            assert read_sidecar(image).label == tags.get("Label"), where
            assert temporary_files(sidecar.parent) == [], f"{where}: {temporary_files(sidecar.parent)}"
    finally:
        other.close()
        exiftool.close()
    sync_sidecars(profile)
    for image, image_id in zip(images, ids, strict=True):  # afterwards the profile agrees with every sidecar
        found, mark = read_sidecar(image), profile.marks.get(image_id)
        assert sidecar_view(found.stars, found.flag, found.label) == sidecar_view(mark.stars, mark.flag, mark.label)
    profile.close()
    met = sum(a > 1 for a in ours_retried)
    print(f"\nsidecar race, seed {SEED}: {RACE_ROUNDS} rounds, one mark takes {window * 1000:.1f} ms; "
          f"our write met theirs {met} times, theirs met ours {theirs_retried} times; 0 edits lost")
    assert met + theirs_retried >= 5, "the two writers hardly overlapped: the harness tested nothing"


def _cli(profile: Path, *args: str) -> subprocess.Popen:
    return subprocess.Popen([*CLI, "--profile", str(profile), *args], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)  # fmt: skip


def _state(folder: Path) -> dict[str, tuple[int, int]]:
    """(mtime, size) of every file in the folder: the first change shows a run has begun writing."""
    state = {}
    for entry in os.scandir(folder):
        try:
            info = entry.stat()
        except FileNotFoundError:  # a temporary file renamed meanwhile
            continue
        state[entry.name] = (info.st_mtime_ns, info.st_size)
    return state


def _prepare(kind: str, number: int, images: list[Path], profile_path: Path, rng: random.Random) -> list[str]:
    """Give the round's command work to do, and return its arguments."""
    if kind == "sync":  # the other program edits some sidecars: keywords and the rating
        for index in rng.sample(range(len(images)), 10):
            sidecar = images[index].with_suffix(".xmp")
            text = sidecar.read_text(encoding="utf-8").replace(f"kw-{index}<", f"kw-{index}</rdf:li><rdf:li>r{number}<")
            temporary = sidecar.with_name(sidecar.name + ".by-the-other-program")
            temporary.write_text(re.sub(r'xmp:Rating="[^"]*"', f'xmp:Rating="{rng.randrange(6)}"', text), encoding="utf-8")
            os.replace(temporary, sidecar)
        return ["sync-xmp"]
    profile = open_profile(profile_path)
    try:
        marks = [profile.marks.get(profile.catalog.image_by_path(str(p)).id) for p in images]  # type: ignore[union-attr]
        if kind == "export":  # marks changed in the profile only: the export writes them out
            for mark in marks:
                if rng.random() < 0.6:
                    mark_image(profile, mark.image_id, label=_next(mark.label, LABELS, rng))
            return ["export", "--format", "xmp"]
    finally:
        profile.close()
    label = rng.choice([name for name in LABELS if name not in {m.label for m in marks}] or LABELS)
    change = rng.choice([["--label", label], ["--reject" if marks[0].flag != "reject" else "--pick"],
                         ["--stars", str(_next(marks[0].stars, list(range(6)), rng))]])  # fmt: skip
    return ["mark", *map(str, images), *change]


def test_kill_9_during_sync_marks_and_export_leaves_whole_sidecars_and_a_rerun_completes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rng = random.Random(SEED)
    folder = tmp_path / "shoot"
    images = _shoot(folder, 40)
    profile_path = tmp_path / "kill.db"
    _registered(profile_path, images).close()
    start = time.perf_counter()  # how long a batch takes here, to kill inside one
    assert main(["--profile", str(profile_path), "mark", *map(str, images), "--label", "Purple"]) == 0
    batch = time.perf_counter() - start
    work = {"mark": batch, "export": batch, "sync": batch / 2}
    exiftool = ExifTool()
    kinds = ["mark", "export", "sync"] * (KILL_ROUNDS // 3)
    rng.shuffle(kinds)
    killed_working = partly_done = left_temporary = 0
    try:
        for number, kind in enumerate(kinds):
            where = f"seed {SEED}, round {number} ({kind})"
            args = _prepare(kind, number, images, profile_path, rng)
            before = {**_state(folder), **_state(profile_path.parent)}
            sidecars_before = {p: p.read_bytes() for p in folder.glob("*.xmp")}
            process = _cli(profile_path, *args)
            deadline = time.monotonic() + 30  # start-up is most of a run: wait for its first write
            while process.poll() is None and time.monotonic() < deadline and \
                    {**_state(folder), **_state(profile_path.parent)} == before:
                time.sleep(0.002)
            time.sleep(rng.uniform(0, work[kind]))
            killed_working += process.poll() is None
            process.kill()
            process.wait()
            left_temporary += bool(temporary_files(folder))  # killed inside a write: the rerun must clean it
            at_kill = {p: p.read_bytes() for p in folder.glob("*.xmp")}
            for n, image in enumerate(images):  # whole sidecars, the other program's keywords all there
                sidecar = image.with_suffix(".xmp")
                read_xmp_file(sidecar)
                assert f"<rdf:li>kw-{n}</rdf:li>" in sidecar.read_text(encoding="utf-8"), where
            connection = sqlite3.connect(profile_path)
            try:
                assert connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok", where
            except sqlite3.Error as error:
                raise AssertionError(f"{where}: {getattr(error, 'sqlite_errorname', '')} {error}; "
                                     f"{sorted(os.listdir(profile_path.parent))}") from error
            finally:
                connection.close()
            code = main(["--profile", str(profile_path), *args])  # the rerun, through the same CLI entry
            assert code == 0, f"{where}: {capsys.readouterr().err}"
            done_before_kill = any(at_kill[p] != sidecars_before.get(p) for p in at_kill)
            left_for_rerun = any(p.read_bytes() != at_kill[p] for p in at_kill)
            partly_done += done_before_kill and left_for_rerun  # the kill landed inside the batch
            assert temporary_files(folder) == [], f"{where}: leftovers {temporary_files(folder)}"
            profile = open_profile(profile_path)
            try:
                for image, tags in zip(images, exiftool.read(*[p.with_suffix(".xmp") for p in images]), strict=True):
                    mark = profile.marks.get(profile.catalog.image_by_path(str(image)).id)  # type: ignore[union-attr]
                    found = read_sidecar(image)
                    assert sidecar_view(found.stars, found.flag, found.label) == sidecar_view(
                        mark.stars, mark.flag, mark.label), f"{where}: {image.name}: {found} vs {mark}"
                    ratings = {found.stars} if found.stars is not None else {-1, None}
                    assert tags.get("Label") == found.label and tags.get("Rating") in ratings, f"{where}: {tags}"
            finally:
                profile.close()
    finally:
        exiftool.close()
    with capsys.disabled():
        print(f"\nkill -9 harness, seed {SEED}: {len(kinds)} rounds (sync-xmp, mark on {len(images)} images, "
              f"export), {killed_working} killed while running, {partly_done} left the batch half-way, "
              f"{left_temporary} left a temporary file; 0 sidecars lost or half-written, 0 leftovers after the rerun")
    assert killed_working >= len(kinds) // 2, "most kills came after the command had finished"
