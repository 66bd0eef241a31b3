"""Does a blur measure read blur, or the made blur's kernel? A check on a tried and rejected measure.

The benchmark's blurred copies are made with one exact kernel each (a disc for defocus, a straight
line for shake) and saved without sensor noise after the blur. Such a kernel multiplies the frame's
spectrum by a pattern with exact zeros (rings for a disc, parallel lines for a line), and the power
cepstrum (the inverse transform of the log power spectrum) shows them as one deep dip: at the disc's
diameter, or at the line's length and angle. A measure built on it separates the made copies from
clean photographs almost perfectly, yet a real missed focus (a lens's blur disc is softened by
aberrations, depth varies across the scene) or real shake (a curved path) with noise added after it
has no such zeros. This prints the dips on the app's own focus frame (the detail decode where
there is one) for the clean photographs, their made copies, and the photographs labelled by eye as
blurred, so the difference is measured rather than assumed. It is not part of the app.

    python benchmarks/kernel_fingerprint.py [--split tune] [--jobs 2]
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import load_corpus
from culling_fit_data import FIT_SPLITS, fit_cache, make_copies

from aesthete_gui.imaging.checks import decode_check_frames, detail_wanted
from aesthete_gui.imaging.decode import read_bytes

TILE = 256
"""Side of the windows the spectrum is averaged over (a dip up to TILE / 4 px from the origin is read)."""
NEAREST = 2
"""Dips nearer the origin than this (px) are the frame's own smooth spectrum, not a kernel."""
BLURRED = re.compile(r"blur|soft|focus|shake|smear", re.IGNORECASE)
COPIES = ("original", "defocus-0.5", "smear-1.2")


def focus_frame(path: Path) -> np.ndarray:
    """The grey levels of the frame the app measures focus on (its detail decode when it has one)."""
    decoded, detail = decode_check_frames(read_bytes(path), os.fsdecode(path))
    frame = decoded.image
    if (
        detail is not None
        and detail_wanted(decoded.full_size, frame.size)
        and max(detail.image.size) > max(frame.size)
    ):
        frame = detail.image
    return np.asarray(frame.convert("L"), dtype=np.float64)


def cepstral_dips(grey: np.ndarray) -> tuple[float, float]:
    """(ring, point): the deepest dip of the power cepstrum's radial mean (a disc kernel) and of any
    single point (a line kernel), in thousandths, averaged over the most detailed half of the windows."""
    tile = TILE if min(grey.shape) >= TILE else TILE // 2
    if min(grey.shape) < tile:
        return float("nan"), float("nan")
    step = tile // 2
    corners = [
        (y, x)
        for y in range(0, grey.shape[0] - tile + 1, step)
        for x in range(0, grey.shape[1] - tile + 1, step)
    ]
    detail = [
        float(np.abs(np.diff(grey[y : y + tile, x : x + tile], axis=1)).mean()) for y, x in corners
    ]
    chosen = [corners[i] for i in np.argsort(detail)[::-1][: max(4, len(corners) // 2)]]
    window = np.outer(np.hanning(tile), np.hanning(tile))
    power = np.zeros((tile, tile))
    for y, x in chosen:
        patch = grey[y : y + tile, x : x + tile]
        power += np.abs(np.fft.fft2((patch - patch.mean()) * window)) ** 2
    cepstrum = np.fft.fftshift(np.real(np.fft.ifft2(np.log(power / len(chosen) + 1e-2))))
    yy, xx = np.mgrid[-tile // 2 : tile // 2, -tile // 2 : tile // 2]
    radius = np.hypot(yy, xx)
    # the JPEG block grid and the frame's own rows and columns lie on the axes
    off_axis = (yy != 0) & (xx != 0)
    bins = np.rint(radius[off_axis]).astype(int)
    radial = np.bincount(bins, cepstrum[off_axis], tile) / np.maximum(
        np.bincount(bins, minlength=tile), 1
    )
    reach = tile // 4
    ring = -float(radial[NEAREST:reach].min())
    point = -float(cepstrum[(radius >= NEAREST + 0.5) & (radius <= reach)].min())
    return 1000 * ring, 1000 * point


def _measure(task: tuple[str, str, Path]) -> tuple[str, str, float, float]:
    photo, kind, path = task
    return (photo, kind, *cepstral_dips(focus_frame(path)))


def main() -> None:
    """Measure the split's clean photographs, their made copies and its blurred rejects; print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--split",
        choices=[*FIT_SPLITS, "fit"],
        default="fit",
        help="a split of the fit pool, or all of it",
    )
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    tasks: list[tuple[str, str, Path]] = []
    why: dict[str, str] = {}
    for split in FIT_SPLITS if args.split == "fit" else (args.split,):
        for photo in load_corpus(split):
            if photo.label == "clean":
                copies = make_copies(photo, fit_cache(split))
                tasks.append((photo.id, "clean as shipped", photo.file))  # type: ignore[arg-type]
                tasks += [(photo.id, kind, copies[kind]) for kind in COPIES]
            elif BLURRED.search(photo.why):
                why[photo.id] = photo.why
                tasks.append((photo.id, "labelled blurred", photo.file))  # type: ignore[arg-type]
    with ProcessPoolExecutor(max(1, args.jobs)) as pool:
        rows = list(pool.map(_measure, tasks, chunksize=8))
    clean = np.array([r[2:] for r in rows if r[1] == "clean as shipped"])
    top = np.nanquantile(clean, 0.99, axis=0)
    print(
        f"| frames | n | ring dip: median | above the clean 99th percentile ({top[0]:.1f}) | point dip: median | above ({top[1]:.1f}) |"
    )
    print("|---|---|---|---|---|---|")
    for kind in ("clean as shipped", *COPIES, "labelled blurred"):
        values = np.array([r[2:] for r in rows if r[1] == kind])
        above = (values > top).mean(axis=0)
        print(
            f"| {kind} | {len(values)} | {np.nanmedian(values[:, 0]):.2f} | {above[0]:.2f} | {np.nanmedian(values[:, 1]):.1f} | {above[1]:.2f} |"
        )
    print("\nPhotographs labelled blurred by eye:")
    for photo, kind, ring, point in rows:
        if kind == "labelled blurred":
            print(f"- {photo}: ring {ring:.2f}, point {point:.1f} — {why[photo]}")


if __name__ == "__main__":
    main()
