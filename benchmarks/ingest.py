"""Import throughput on generated 12 MP photo-like JPEGs, against plain draft-decode + 256 px thumbnails.

Measured in one run, both with every core, on the same files (read once beforehand so both find
them in the page cache):
- baseline: a process pool that opens each file, DCT-scales it while decoding (Pillow `draft`),
  makes a 256 px thumbnail and writes it as JPEG;
- import: `services.library.import_folders` into a fresh profile and thumbnail cache, features off,
  as `aesthete import` runs by default (the ~1024 px preview is made when an image is first shown).
  Its first pass (scan, hash, EXIF, 256 px thumbnail, perceptual hash, colour signature, SQLite
  writes) ends with every image in the grid: the time to a browsable grid. Its second pass measures
  the technical checks and faces, shown as they arrive: the time to all verdicts;
- import with previews: the same with the 1024 px preview built during the import as well
  (`aesthete import --previews`), reported for information;
- re-import: the same folder again (nothing changed: nothing is read);
- features: an import with features on into another fresh profile (`--features-count` files).
Targets: the browsable grid >= 80% of the baseline's speed; re-import >= 20x faster than the first
import (to all verdicts).

    python benchmarks/ingest.py [--count 500] [--features-count 100] [--json] [--no-write]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

WIDTH, HEIGHT = 4000, 3000
NOISE = 12
RATIO_TARGET = 0.8
REIMPORT_TARGET = 20.0
DOC = REPO / "docs" / "benchmarks" / "ingest.md"
DEFAULT_CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "aesthete-bench" / "ingest-12mp"
_BASES: list[np.ndarray] = []


def _bases() -> list[np.ndarray]:
    """Real photographs (scikit-image's public-domain samples) upscaled to 12 MP, once per process."""
    if not _BASES:
        from PIL import Image
        from skimage import data

        for name in ("astronaut", "coffee", "chelsea", "rocket"):
            photo = Image.fromarray(getattr(data, name)()).convert("RGB")
            _BASES.append(np.asarray(photo.resize((WIDTH, HEIGHT), Image.Resampling.BICUBIC), dtype=np.int16))
    return _BASES


def make_photo(index: int, path: Path) -> None:
    """One photo-like 12 MP JPEG: an upscaled photograph, a gradient, shapes, sensor-like noise, EXIF."""
    from PIL import Image, ImageDraw

    rng = np.random.default_rng(index)
    base = _bases()[index % 4]
    ys = np.linspace(-40, 40, HEIGHT, dtype=np.float32)[:, None, None]
    tint = rng.integers(-30, 30, 3).astype(np.float32)
    pixels = base + (ys * rng.uniform(-1, 1) + tint).astype(np.int16)
    # Sensor-like grain on every pixel (a real 12 MP camera JPEG is 3-6 MB; a smooth one is not).
    pixels += rng.integers(-NOISE, NOISE + 1, size=(HEIGHT, WIDTH, 1), dtype=np.int16)
    pixels += rng.integers(-NOISE // 2, NOISE // 2 + 1, size=(HEIGHT, WIDTH, 3), dtype=np.int16)
    image = Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8))
    draw = ImageDraw.Draw(image)
    for _ in range(6):
        x, y = int(rng.integers(0, WIDTH - 600)), int(rng.integers(0, HEIGHT - 600))
        w, h = int(rng.integers(80, 600)), int(rng.integers(80, 600))
        colour = tuple(int(c) for c in rng.integers(0, 256, 3))
        (draw.ellipse if rng.random() < 0.5 else draw.rectangle)((x, y, x + w, y + h), fill=colour)
    exif = Image.Exif()
    exif[0x010F], exif[0x0110] = "Bench", "Camera 12"
    ifd = exif.get_ifd(0x8769)
    ifd[0x9003] = f"2026:01:01 10:{index // 60 % 60:02d}:{index % 60:02d}"
    ifd[0x9291] = f"{index % 100:02d}"
    temp = path.with_suffix(".tmp")
    image.save(temp, "JPEG", quality=90, exif=exif)
    os.replace(temp, path)


def ensure_images(folder: Path, count: int) -> list[Path]:
    """The first `count` benchmark images in `folder`, generated (in parallel) when missing."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / f"bench_{i:04d}.jpg" for i in range(count)]
    missing = [(i, p) for i, p in enumerate(paths) if not p.is_file()]
    if missing:
        print(f"generating {len(missing)} images of {WIDTH}x{HEIGHT} in {folder} …", file=sys.stderr)
        with ProcessPoolExecutor(max_workers=os.cpu_count()) as pool:
            list(pool.map(make_photo, *zip(*missing, strict=True), chunksize=4))
    return paths


def baseline_thumbnail(path: str, out_dir: str) -> None:
    """Plain draft decode + 256 px thumbnail written as JPEG: the cheapest way to a grid thumbnail."""
    from PIL import Image

    with Image.open(path) as image:
        image.draft("RGB", (256, 256))
        image = image.convert("RGB")
        image.thumbnail((256, 256), Image.Resampling.BICUBIC)
        image.save(os.path.join(out_dir, os.path.basename(path)), "JPEG", quality=85)


def run_baseline(paths: list[Path], workers: int) -> float:
    """Seconds for the baseline over every path with a pool of `workers` (pool start included)."""
    import multiprocessing

    out_dir = tempfile.mkdtemp(prefix="ingest-baseline-")
    start = time.perf_counter()
    context = multiprocessing.get_context("forkserver")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        list(pool.map(baseline_thumbnail, [str(p) for p in paths], [out_dir] * len(paths), chunksize=1))
    seconds = time.perf_counter() - start
    shutil.rmtree(out_dir, ignore_errors=True)
    return seconds


def run_import(
    folder: Path, scratch: Path, workers: int, features: bool, previews: bool = False
) -> tuple[float, object]:
    """Seconds for import_folders into a fresh profile under `scratch`, and its summary."""
    from aesthete_gui.services.library import import_folders
    from aesthete_gui.store import open_profile

    profile = open_profile(scratch / "profile.db")
    start = time.perf_counter()
    summary = import_folders(profile, [folder], workers=workers, features=features,
                             previews=previews, cache_dir=scratch / "thumbs")  # fmt: skip
    seconds = time.perf_counter() - start
    profile.close()
    return seconds, summary


def _link(source: Path, target: Path) -> None:
    try:
        os.link(source, target)
    except OSError:  # another file system: a symbolic link is followed by the import just as well
        os.symlink(source, target)


def warm_cache(paths: list[Path]) -> None:
    """Read every file once so both contenders find them in the page cache."""
    for path in paths:
        with open(path, "rb") as handle:
            while handle.read(1 << 22):
                pass


def measure(
    count: int, features_count: int, cache: Path, workers: int, repeat: int = 1
) -> dict[str, float]:
    """Run every measurement once and return the figures."""
    paths = ensure_images(cache, count)
    load_before = os.getloadavg()[0]
    folder = Path(tempfile.mkdtemp(prefix="ingest-set-"))
    for path in paths:  # exactly `count` files in the imported folder, linked, not copied
        _link(path, folder / path.name)
    scratch = Path(tempfile.mkdtemp(prefix="ingest-run-"))
    try:
        warm_cache(paths)
        baseline_times, import_times, browsable_times = [], [], []
        for round_ in range(repeat):  # alternate the order; keep each contender's best time
            target = scratch / f"a{round_}"
            if round_ % 2:
                import_s, summary = run_import(folder, target, workers, features=False)
                baseline_times.append(run_baseline(paths, workers))
            else:
                baseline_times.append(run_baseline(paths, workers))
                import_s, summary = run_import(folder, target, workers, features=False)
            assert summary.imported == count and summary.errors == 0, summary
            import_times.append(import_s)
            browsable_times.append(summary.browsable_seconds + (import_s - summary.seconds))
        baseline_s, import_s, browsable_s = min(baseline_times), min(import_times), min(browsable_times)
        reimport_s, again = run_import(folder, target, workers, features=False)
        assert again.unchanged == count, again
        previews_s, with_previews = run_import(folder, scratch / "p", workers, False, previews=True)
        assert with_previews.imported == count, with_previews
        feature_folder = Path(tempfile.mkdtemp(prefix="ingest-features-"))
        for path in paths[:features_count]:
            _link(path, feature_folder / path.name)
        features_s, with_features = run_import(feature_folder, scratch / "b", workers, features=True)
        assert with_features.imported == features_count, with_features
        shutil.rmtree(feature_folder, ignore_errors=True)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        shutil.rmtree(scratch, ignore_errors=True)
    return {
        "load_before": load_before,
        "load_after": os.getloadavg()[0],
        "count": count,
        "repeat": repeat,
        "mean_file_mb": sum(p.stat().st_size for p in paths) / len(paths) / 1e6,
        "features_count": features_count,
        "workers": workers,
        "import_seconds": import_s,
        "browsable_seconds": browsable_s,
        "baseline_seconds": baseline_s,
        "reimport_seconds": reimport_s,
        "features_seconds": features_s,
        "previews_seconds": previews_s,
        "import_images_per_s": count / import_s,
        "baseline_images_per_s": count / baseline_s,
        "ratio": baseline_s / browsable_s,
        "verdicts_ratio": baseline_s / import_s,
        "reimport_speedup": import_s / reimport_s,
        "features_images_per_s": features_count / features_s,
    }


def table(figures: dict[str, float]) -> str:
    """The results as a Markdown table."""
    ratio_ok = "yes" if figures["ratio"] >= RATIO_TARGET else "NO"
    speed_ok = "yes" if figures["reimport_speedup"] >= REIMPORT_TARGET else "NO"
    rows = [
        ("baseline: draft decode + 256 px thumbnail", f"{figures['baseline_images_per_s']:.1f} img/s",
         f"{figures['baseline_seconds']:.2f} s", ""),
        ("import to a browsable grid (hash + EXIF + thumbnail + pHash + signature + SQLite)",
         f"{figures['count'] / figures['browsable_seconds']:.1f} img/s", f"{figures['browsable_seconds']:.2f} s", ""),
        ("browsable grid / baseline", f"{figures['ratio']:.2f}", "", f">= {RATIO_TARGET}: {ratio_ok}"),
        ("import to all verdicts (+ checks and faces, second pass)", f"{figures['import_images_per_s']:.1f} img/s",
         f"{figures['import_seconds']:.2f} s", f"{figures['verdicts_ratio']:.2f} of baseline"),
        ("import with 1024 px previews too (all verdicts)", f"{figures['count'] / figures['previews_seconds']:.1f} img/s",
         f"{figures['previews_seconds']:.2f} s",
         f"{figures['baseline_seconds'] / figures['previews_seconds']:.2f} of baseline"),
        ("re-import, nothing changed", f"{figures['count'] / figures['reimport_seconds']:.0f} img/s",
         f"{figures['reimport_seconds']:.3f} s", ""),
        ("re-import speed-up (over the import to all verdicts)", f"{figures['reimport_speedup']:.0f}x", "",
         f">= {REIMPORT_TARGET:.0f}x: {speed_ok}"),
        (f"import with features ({figures['features_count']} files)",
         f"{figures['features_images_per_s']:.1f} img/s", f"{figures['features_seconds']:.2f} s", ""),
    ]  # fmt: skip
    lines = ["| measurement | throughput | time | target |", "|---|---|---|---|"]
    lines += [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in rows]
    return "\n".join(lines)


def write_doc(figures: dict[str, float]) -> None:
    """Write docs/benchmarks/ingest.md with the table, machine and date."""
    uname = " ".join(platform.uname())
    nproc = os.cpu_count()
    with contextlib.suppress(OSError, subprocess.CalledProcessError):
        uname = subprocess.run(["uname", "-a"], capture_output=True, text=True, check=True).stdout.strip()
    text = f"""# Ingest benchmark (`benchmarks/ingest.py`)

{figures['count']} generated {WIDTH}x{HEIGHT} (12 MP) photo-like JPEGs (an upscaled scikit-image
photograph, a gradient, shapes and noise; quality 90, with EXIF), {figures['workers']} worker
processes (all cores). The baseline and the import run in the same process, one after the other, on
the same files, which were read once before so both find them in the page cache; they run
{figures['repeat']} times each in alternating order and the best time of each counts (the machine
is shared, so single runs are noisy). The import uses a
fresh profile and thumbnail cache. Its first pass (folder scan, worker start-up, content hash, EXIF,
the 256 px thumbnail, the perceptual hash, the colour signature, the SQLite writes) ends with every
image in the grid: the time to a browsable grid. The second pass, on the same workers, measures the
technical checks and faces (a decode at the checks' 768 px size), which the grid shows as they
arrive ("checking…" until then): the time to all verdicts. By default the ~1024 px
preview is made when an image is first shown (as Lightroom's "minimal previews" import does);
`aesthete import --previews` builds it during the import, measured in its own row. Files average
{figures['mean_file_mb']:.1f} MB (a 12 MP camera JPEG is typically 3-6 MB).

{table(figures)}

- Date: {datetime.now(UTC).strftime('%Y-%m-%d %H:%M UTC')}
- Machine: `{uname}`, nproc = {nproc}; 1-minute load average {figures['load_before']:.1f} before
  and {figures['load_after']:.1f} after the run (other jobs shared the cores)
- Command: `python benchmarks/ingest.py --count {figures['count']} --features-count {figures['features_count']} --repeat {figures['repeat']}`
"""
    DOC.parent.mkdir(parents=True, exist_ok=True)
    DOC.write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    """Parse arguments, measure, print and record."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=500, help="number of 12 MP JPEGs (default 500)")
    parser.add_argument("--features-count", type=int, default=None,
                        help="files for the features measurement (default: min(count, 100))")  # fmt: skip
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="processes (default: all cores)")
    parser.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE, help="where generated images are kept")
    parser.add_argument("--repeat", type=int, default=2,
                        help="baseline/import rounds, alternating order; best time of each (default 2)")  # fmt: skip
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--no-write", action="store_true", help=f"do not update {DOC.relative_to(REPO)}")
    args = parser.parse_args(argv)
    features_count = args.features_count if args.features_count is not None else min(args.count, 100)
    figures = measure(args.count, features_count, args.cache_dir, args.workers, args.repeat)
    if args.json:
        keys = ("import_images_per_s", "baseline_images_per_s", "ratio", "verdicts_ratio", "reimport_speedup",
                "features_images_per_s")  # fmt: skip
        print(json.dumps({k: round(figures[k], 4) for k in keys}))
    else:
        print(table(figures))
    if not args.no_write:
        write_doc(figures)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
