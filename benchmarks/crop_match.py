"""Crop matching, before and after its speed-up: milliseconds per pair of the frozen reference
matcher (tests/imaging/crop_match_reference.py) and of imaging.crop_match, and the crop-matching
part of grouping 150 untimed frames, both measured in the same run; the verdicts must be identical.

Pairs: crops, resized, re-compressed and edited copies, and pictures that only look alike (panned,
rotated, mirrored, a moved subject, half blank, a too-small crop, unrelated photographs whose colours
could nest), made from the photographs installed packages ship (and, with --corpus N, the first N
cached photographs of the calibration corpus); then random pairs of the small photo-like frames the
import tests write (a shared gradient sends nearly all of them through the whole fine search).
Grouping: 150 such 160 x 120 frames without capture times, as the import would see them, through
ThumbnailMatcher and imaging.bursts.group_bursts; each matcher starts with empty caches. Every
figure is the better of two runs, the two matchers taking turns (the cores are shared).

    python benchmarks/crop_match.py [--frames 150] [--corpus 0] [--no-write]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

DOC = REPO / "docs" / "benchmarks" / "crop_match.md"


def _photographs(corpus: int) -> list:
    import culling_data

    photos = list(culling_data.load_photos().values())
    if corpus:
        from corpus import load_corpus

        photos += [p.open() for p in load_corpus("all")[:corpus]]
    return photos


def _clear_caches() -> None:
    from aesthete_gui.imaging import crop_match
    from tests.imaging import crop_match_reference

    for cached in (crop_match._coarse, crop_match._smooth, crop_match._template, crop_match_reference._coarse):
        cached.cache_clear()


def time_pairs(pairs: Sequence, matcher: Callable) -> tuple[np.ndarray, list[bool]]:
    """Seconds and verdict of each pair (caches emptied first)."""
    _clear_caches()
    seconds, verdicts = [], []
    for pair in pairs:
        start = time.perf_counter()
        verdicts.append(bool(matcher(pair.first, pair.second)))
        seconds.append(time.perf_counter() - start)
    return np.array(seconds), verdicts


def pair_rows(name: str, pairs: Sequence) -> dict:
    """Reference and new matcher on one pair set, taking turns; the better of two runs of each."""
    from aesthete_gui.imaging.crop_match import same_frame
    from tests.imaging.crop_match_reference import same_frame as reference_same_frame

    runs = {"reference": [], "new": []}
    for _ in range(2):
        for key, matcher in (("reference", reference_same_frame), ("new", same_frame)):
            runs[key].append(time_pairs(pairs, matcher))
    best = {key: min(r, key=lambda run: run[0].sum()) for key, r in runs.items()}
    same = sum(a == b for a, b in zip(best["reference"][1], best["new"][1], strict=True))
    intended = sum(v == p.should_match for v, p in zip(best["new"][1], pairs, strict=True))
    return {"name": name, "pairs": len(pairs), "identical": same, "yes": sum(best["new"][1]), "intended": intended,
            **{f"{key}_{stat}": f(best[key][0]) * 1000 for key in best
               for stat, f in (("median", np.median), ("p90", lambda s: np.percentile(s, 90)), ("total", np.sum))}}  # fmt: skip


def grouping_rows(count: int) -> dict:
    """Group `count` untimed import-test frames with each matcher; the seconds spent in the pixel check."""
    from aesthete_gui.imaging import crop_groups
    from aesthete_gui.imaging.bursts import Frame, group_bursts
    from aesthete_gui.imaging.crop_match import Thumb, same_frame
    from aesthete_gui.imaging.hashing import perceptual_hash
    from tests.imaging.crop_match_reference import same_frame as reference_same_frame
    from tests.imaging.crop_pairs import gradient_photo, import_test_frames

    views = import_test_frames(count)
    frames = [Frame(key, phash=perceptual_hash(gradient_photo(key, (160, 120)))) for key in range(count)]
    out: dict = {"frames": count}
    for key, matcher in (("reference", reference_same_frame), ("new", same_frame)) * 2:  # best of two each
        _clear_caches()
        spent = [0.0]

        def timed(a: Thumb, b: Thumb, matcher: Callable = matcher, spent: list = spent) -> bool:
            start = time.perf_counter()
            try:
                return matcher(a, b)
            finally:
                spent[0] += time.perf_counter() - start

        original = crop_groups.same_frame
        crop_groups.same_frame = timed
        try:
            thumbs = crop_groups.ThumbnailMatcher(lambda k: views[k])  # type: ignore[index]
            start = time.perf_counter()
            groups = group_bursts(frames, matcher=thumbs)
            grouping_s = time.perf_counter() - start
        finally:
            crop_groups.same_frame = original
        if spent[0] >= out.get(f"{key}_matching_s", np.inf):
            continue
        out[f"{key}_grouping_s"], out[f"{key}_matching_s"], out[f"{key}_pairs"] = grouping_s, spent[0], thumbs.comparisons
        out[f"{key}_groups"], out[f"{key}_verdicts"] = groups, dict(thumbs._verdicts)
    out["identical"] = out["reference_groups"] == out["new_groups"] and out["reference_verdicts"] == out["new_verdicts"]
    out["yes"] = sum(bool(v) for v in out["new_verdicts"].values())
    return out


def main(argv: list[str] | None = None) -> int:
    """Measure, print and record (docs/benchmarks/crop_match.md)."""
    from tests.imaging.crop_pairs import frame_pairs, import_test_frames, photo_pairs

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=150, help="untimed frames grouped")
    parser.add_argument("--corpus", type=int, default=0, help="calibration-corpus photographs added to the pair set")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(argv)
    load_before = os.getloadavg()[0]
    photos = _photographs(args.corpus)
    rows = [pair_rows(f"{len(photos)} photographs: copies and look-alikes", photo_pairs(photos)),
            pair_rows("import-test frames (160 x 120), random pairs", frame_pairs(import_test_frames(60), 200))]  # fmt: skip
    grouping = grouping_rows(args.frames)
    text = report(rows, grouping, load_before, os.getloadavg()[0])
    print(text)
    if not args.no_write:
        DOC.write_text(text, encoding="utf-8")
    return 0 if all(r["identical"] == r["pairs"] for r in rows) and grouping["identical"] else 1


def report(rows: list[dict], g: dict, load_before: float, load_after: float) -> str:
    """The Markdown page."""
    uname = " ".join(platform.uname())
    with contextlib.suppress(OSError, subprocess.CalledProcessError):
        uname = subprocess.run(["uname", "-a"], capture_output=True, text=True, check=True).stdout.strip()
    lines = [f"| {r['name']} | {r['pairs']} | {r['reference_median']:.1f} / {r['reference_p90']:.1f} | "
             f"{r['new_median']:.1f} / {r['new_p90']:.1f} | {r['reference_total'] / r['new_total']:.2f}× | "
             f"{r['identical']} / {r['pairs']} ({r['yes']} yes; {r['intended']} as made) |" for r in rows]  # fmt: skip
    ratio = g["reference_matching_s"] / g["new_matching_s"]
    return f"""# Crop-matching benchmark (`benchmarks/crop_match.py`)

{__doc__.split(chr(10) + chr(10))[1]}

{__doc__.split(chr(10) + chr(10))[2]}

| pair set | pairs | reference ms per pair (median / p90) | new | ratio (total time) | identical verdicts |
|---|---|---|---|---|---|
{chr(10).join(lines)}

| grouping {g['frames']} untimed 160 x 120 frames | reference | new | ratio |
|---|---|---|---|
| pixel comparisons (`same_frame` calls) | {g['reference_pairs']} | {g['new_pairs']} | |
| time in crop matching | {g['reference_matching_s']:.1f} s | {g['new_matching_s']:.1f} s | {ratio:.2f}× |
| whole grouping | {g['reference_grouping_s']:.1f} s | {g['new_grouping_s']:.1f} s | {g['reference_grouping_s'] / g['new_grouping_s']:.2f}× |
| groups, verdicts identical | | | {'yes' if g['identical'] else '**no**'} ({g['yes']} pairs called one frame) |

The new matcher runs the same search and the same tests; it is cheaper because its FFTs use
lengths with small prime factors only (a window of prime size cost up to 7× more; the zeros added
change no placement inside the image), only the rows of valid placements are transformed back, the
resized and blurred crop at each size and each frame's blurred view are kept between pairs, the
brightness plane comes from its 3 × 3 normal equations instead of a least-squares solve over every
pixel, and `same_frame` checks the whole-crop NCC before the tiles and the residual (most placements
fail it). Numbers differ from the reference's by rounding only (checked within 1e-6 by
`tests/imaging/test_crop_match_equivalence.py`).

"As made" counts the verdicts that agree with how each pair was made (a copy or crop should match,
the rest should not); both matchers give the same verdicts, so the count is the same for both.

- Date: {datetime.now(UTC).strftime('%Y-%m-%d %H:%M UTC')}
- Machine: `{uname}`, nproc = {os.cpu_count()}; 1-minute load average {load_before:.1f} before and
  {load_after:.1f} after (other jobs shared the cores)
"""


if __name__ == "__main__":
    raise SystemExit(main())
