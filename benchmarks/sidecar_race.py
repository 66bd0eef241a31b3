"""Sidecar race benchmark: another program rewrites keywords (and, one round in four, the rating) of
the sidecars Aesthete is writing marks into; how many of whose edits are lost.

Each round the other program (its own process, tests/robustness/sidecar_race.py) is asked to write
after a random delay spread over one mark's duration, and Aesthete sets a label on the same image
through services.library.mark_image (the path of the window and of `aesthete mark`). After the round,
exiftool reads the sidecar. "naive" is a program that renames its new file over the sidecar without
looking (as exiftool does); "careful" checks, like Aesthete, that the file it replaced is the one it
read. Run it on another checkout to compare (`PYTHONPATH=/path/to/old/checkout python
benchmarks/sidecar_race.py --code before`): it uses only calls both versions have (the profile's
repositories of issue 20 are looked up where they exist).

    python benchmarks/sidecar_race.py [--rounds 200] [--seed 19] [--code after]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import platform
import random
import statistics
import tempfile
import time
from pathlib import Path

import aesthete_gui
from aesthete_gui.imaging.xmp import write_sidecar

try:
    from aesthete_gui.services.library import mark_image
except ImportError:  # a checkout from before issue 20 (set_mark, one Profile class)
    from aesthete_gui.services.library import set_mark as mark_image  # type: ignore[attr-defined,no-redef]
from aesthete_gui.services.sidecar_sync import sync_sidecars
from aesthete_gui.store import ImageUpdate, open_profile

_HELPERS = Path(__file__).resolve().parents[1] / "tests" / "robustness" / "sidecar_race.py"
_spec = importlib.util.spec_from_file_location("sidecar_race", _HELPERS)
assert _spec is not None and _spec.loader is not None
race = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(race)
LABELS = ["Red", "Yellow", "Green", "Blue", "Purple"]


def run(mode: str, rounds: int, seed: int) -> dict[str, float]:
    """One configuration: `rounds` rounds against the other program in `mode`; the loss counts."""
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        shoot = root / "shoot"
        shoot.mkdir()
        images = []
        for n in range(4):
            image = shoot / f"IMG_{n}.CR2"
            image.write_bytes(b"raw")
            (shoot / f"IMG_{n}.xmp").write_text(race.sidecar_text(1, f"kw-{n}"), encoding="utf-8")
            images.append(image)
        profile = open_profile(root / "p.db")
        catalog = getattr(profile, "catalog", profile)
        marks_of = profile.marks.get if hasattr(profile.marks, "get") else profile.mark_for
        catalog.write_images([ImageUpdate(path=str(p), folder_id=None, status="ok") for p in images])
        sync_sidecars(profile)
        ids = [catalog.image_by_path(str(p)).id for p in images]
        timings = []
        for n in range(6):
            start = time.perf_counter()
            mark_image(profile, ids[0], label=LABELS[n % 5], write_xmp=True)
            timings.append(time.perf_counter() - start)
        window = statistics.median(timings)
        writes = []
        for n in range(20):  # the sidecar write alone: from reading the file to renaming ours over it
            start = time.perf_counter()
            write_sidecar(images[1], n % 6, None, None)
            writes.append(time.perf_counter() - start)
        sync_sidecars(profile)
        other, exiftool = race.OtherProgram(root, mode), race.ExifTool()
        lost = {"their keywords": 0, "their rating": 0, "our label": 0}
        try:
            for number in range(rounds):
                index = number % len(images)
                sidecar = images[index].with_suffix(".xmp")
                current = marks_of(ids[index]).label
                label = rng.choice([name for name in LABELS if name != current])
                rating = rng.randrange(6) if number % 4 == 3 else None
                keywords = [f"round-{number}"]
                other.order(number, sidecar, keywords, rating, rng.uniform(0, 1.5 * window))
                mark_image(profile, ids[index], label=label, write_xmp=True)
                other.done()
                [tags] = exiftool.read(sidecar)
                lost["their keywords"] += race.keywords_of(tags) != keywords
                lost["their rating"] += rating is not None and tags.get("Rating") != rating
                lost["our label"] += tags.get("Label") != label
        finally:
            other.close()
            exiftool.close()
            profile.close()
    return {**lost, "mark ms": window * 1000, "write ms": statistics.median(writes) * 1000}


def main() -> None:
    """Print the table for naive and careful other programs."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--seed", type=int, default=19)
    parser.add_argument("--code", default="this checkout", help="a name for the code measured")
    args = parser.parse_args()
    print(f"{args.rounds} rounds per row, seed {args.seed}, code: {args.code} ({Path(aesthete_gui.__file__).parent}), "
          f"{platform.machine()}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}, "
          f"{time.strftime('%Y-%m-%d')}")  # fmt: skip
    print("| code | other program | rounds | their keywords lost | their rating lost | our label lost "
          "| one mark (ms) | read-to-rename of a sidecar write (ms) |")
    print("|---|---|---|---|---|---|---|---|")
    for mode in ("naive", "careful"):
        result = run(mode, args.rounds, args.seed)
        print(f"| {args.code} | {mode} | {args.rounds} | {result['their keywords']:.0f} | {result['their rating']:.0f} "
              f"| {result['our label']:.0f} | {result['mark ms']:.1f} | {result['write ms']:.2f} |")


if __name__ == "__main__":
    main()
