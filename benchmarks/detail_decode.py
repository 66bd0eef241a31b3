"""What the detail decode for focus and motion blur costs an import, per file, in one run.

For photo-like JPEGs of several sizes (benchmarks/ingest.py's generator at 12 MP, and the same
frames resized to 24 MP, 18 MP and 2,400 px), one core times `imaging.ingest.ingest_file` (hash,
metadata, thumbnail, faces and every check, no preview: `aesthete import`'s default) with the detail
decode as shipped, and with it switched off (checks measured on the 768 px check frame alone, as
before MEASURE_VERSION 8), best of --repeat runs per file; the ratio is the cost of the detail decode.

    python benchmarks/detail_decode.py [--count 6] [--repeat 3]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ingest import DEFAULT_CACHE, ensure_images
from PIL import Image

from aesthete_gui.imaging import checks, ingest

SIZES = {"12 MP (4000 × 3000)": None, "24 MP (6000 × 4000)": (6000, 4000), "18 MP (5184 × 3456)": (5184, 3456),
         "2400 × 1800": (2400, 1800)}  # fmt: skip


@contextmanager
def without_detail() -> Iterator[None]:
    """Checks measured on the check frame alone while inside."""
    sizes, wanted = checks.check_sizes, checks.detail_wanted
    checks.check_sizes = lambda name: checks.CHECK_SIZES[:1]  # type: ignore[assignment]
    ingest.check_sizes = checks.check_sizes  # type: ignore[attr-defined]
    checks.detail_wanted = lambda full, frame: False  # type: ignore[assignment]
    try:
        yield
    finally:
        checks.check_sizes, checks.detail_wanted = sizes, wanted
        ingest.check_sizes = sizes  # type: ignore[attr-defined]


def best_ms(paths: list[Path], repeat: int) -> float:
    """Mean over the files of the best of `repeat` imports of each, in ms."""
    total = 0.0
    for path in paths:
        times = []
        for _ in range(repeat):
            with tempfile.TemporaryDirectory() as cache:
                started = time.perf_counter()
                result = ingest.ingest_file(path, cache, with_preview=False)
                times.append(time.perf_counter() - started)
            assert result.ok, result.error
        total += min(times)
    return 1000 * total / len(paths)


def files(count: int, folder: Path) -> dict[str, list[Path]]:
    """The benchmark's 12 MP JPEGs and copies of them at the other sizes (quality 90)."""
    base = ensure_images(DEFAULT_CACHE, count)
    out: dict[str, list[Path]] = {}
    for label, size in SIZES.items():
        if size is None:
            out[label] = base
            continue
        out[label] = []
        for path in base:
            target = folder / f"{path.stem}_{size[0]}.jpg"
            with Image.open(path) as img:
                img.resize(size, Image.Resampling.BICUBIC).save(target, quality=90)
            out[label].append(target)
    return out


def main() -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=6, help="files per size")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        sets = files(args.count, Path(tmp))
        print("| file size | import with the detail decode, ms/file | without (check frame only) | ratio |")
        print("|---|---|---|---|")
        for label, paths in sets.items():
            best_ms(paths[:1], 1)  # warm imports and the face models
            with_detail = best_ms(paths, args.repeat)
            with without_detail():
                alone = best_ms(paths, args.repeat)
            print(f"| {label} | {with_detail:.0f} | {alone:.0f} | {with_detail / alone:.2f} |", flush=True)


if __name__ == "__main__":
    main()
