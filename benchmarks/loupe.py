"""Loupe at 100 %: time from the key press that moves to the next frame until the original's pixels
are on screen at 100 %, for a 24 MP JPEG and a 24 MP DNG (RAW), cold and with read-ahead, through the
real main window; and what the first frame showed (the cached preview, a thumbnail, or nothing).

Target: <= 300 ms for the JPEG with read-ahead; the preview shown in the first frame.

    python benchmarks/loupe.py [--repeats 3] [--json] [--no-write]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

SIZE = (6000, 4000)  # 24 MP
TARGET_MS = 300.0
DOC = REPO / "docs" / "benchmarks" / "loupe.md"


def _scene(index: int, size: tuple[int, int]) -> np.ndarray:
    width, height = size
    rng = np.random.default_rng(index)
    ramp = np.linspace(30, 220, width, dtype=np.float32)[None, :, None]
    rgb = np.broadcast_to(ramp, (height, width, 3)).copy()
    rgb[height // 3 : height // 2, width // 4 : width // 2] = 240 - index * 20
    rgb += rng.normal(0, 12, (height, width, 3)).astype(np.float32)
    return np.clip(rgb, 0, 255).astype(np.uint8)


def write_jpegs(folder: Path, count: int) -> None:
    """`count` 24 MP JPEGs with fine noise (so they cost what a real frame costs to decode)."""
    from PIL import Image

    folder.mkdir(parents=True, exist_ok=True)
    for index in range(count):
        Image.fromarray(_scene(index, SIZE)).save(folder / f"frame_{index}.jpg", quality=90)


def write_dngs(folder: Path, count: int) -> None:
    """`count` 24 MP DNGs: a 16-bit RGGB mosaic (demosaiced in full for 100 %) and a 1024 px preview."""
    import tifffile
    from PIL import Image

    folder.mkdir(parents=True, exist_ok=True)
    width, height = SIZE
    for index in range(count):
        rgb = _scene(index, SIZE).astype(np.uint16) * 16
        mosaic = np.empty((height, width), dtype=np.uint16)
        mosaic[0::2, 0::2] = rgb[0::2, 0::2, 0]
        mosaic[0::2, 1::2] = rgb[0::2, 1::2, 1]
        mosaic[1::2, 0::2] = rgb[1::2, 0::2, 1]
        mosaic[1::2, 1::2] = rgb[1::2, 1::2, 2]
        preview = np.asarray(Image.fromarray(_scene(index, SIZE)).resize((1024, 683)))
        dng_tags = [
            (50706, "B", 4, (1, 4, 0, 0), True),  # DNGVersion
            (50708, "s", 0, "Aesthete Benchmark Camera", True),  # UniqueCameraModel
            (50721, "2i", 9, [1, 1, 0, 1, 0, 1, 0, 1, 0, 1, 1, 1, 0, 1, 0, 1, 1, 1], True),  # ColorMatrix1
            (50778, "H", 1, 21, True),  # CalibrationIlluminant1 = D65
            (271, "s", 0, "Aesthete", True),
            (272, "s", 0, "Benchmark", True),
        ]
        cfa_tags = [
            (33421, "H", 2, (2, 2), True),  # CFARepeatPatternDim
            (33422, "B", 4, (0, 1, 1, 2), True),  # CFAPattern RGGB
            (50717, "I", 1, 4095, True),  # WhiteLevel
        ]
        with tifffile.TiffWriter(folder / f"frame_{index}.dng") as tif:
            tif.write(preview, photometric="rgb", subfiletype=1, subifds=1, extratags=dng_tags, metadata=None)
            tif.write(mosaic, photometric=32803, subfiletype=0, extratags=cfa_tags, metadata=None)


def _wait(app, condition, timeout_s: float = 120.0) -> None:
    deadline = time.perf_counter() + timeout_s
    while not condition():
        if time.perf_counter() > deadline:
            raise TimeoutError("benchmark step did not finish")
        app.processEvents()
        time.sleep(0.001)


def measure(window, app, ids: list[int], repeats: int, read_ahead: bool) -> list[dict[str, object]]:
    """Step through `ids` with the → key; each step timed from the key press to 100 % on screen."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    loupe = window.loupe
    cache = loupe.full_resolution
    window.open_in_loupe(ids[0])
    _wait(app, lambda: loupe.showing_full_resolution)
    results = []
    for step in range(1, min(len(ids), repeats + 1)):
        cache.wait_idle()
        app.processEvents()  # the read-ahead's result lands in the cache
        if not read_ahead:
            cache.clear()
        target = ids[step]
        start = time.perf_counter()
        QTest.keyClick(loupe, Qt.Key.Key_Right)
        loupe.view.viewport().repaint()
        first_ms = (time.perf_counter() - start) * 1000
        first = "original" if loupe.showing_full_resolution else ("preview/thumbnail" if loupe.view.has_image() else "nothing")
        first_width = loupe.view.image().width() if loupe.view.has_image() else 0
        _wait(app, lambda t=target: loupe.image_id == t and loupe.showing_full_resolution)
        QTest.keyClick(loupe, Qt.Key.Key_Z)
        loupe.view.viewport().repaint()
        total_ms = (time.perf_counter() - start) * 1000
        assert abs(loupe.view.actual_zoom() - 1.0) < 1e-3
        QTest.keyClick(loupe, Qt.Key.Key_Z)  # back to fit for the next step
        results.append({"first_frame_ms": first_ms, "first_frame": first, "first_width": first_width, "to_100_ms": total_ms})
    return results


def run(repeats: int) -> dict[str, object]:
    """Build the files, import them through the window, time every case."""
    from PySide6.QtWidgets import QApplication

    from aesthete_gui.qt.context import build_context
    from aesthete_gui.qt.main_window import MainWindow

    app = QApplication.instance() or QApplication([])
    report: dict[str, object] = {"cases": {}}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for kind, writer in (("JPEG", write_jpegs), ("DNG", write_dngs)):
            folder = root / kind.lower()
            writer(folder, repeats + 1)
            context = build_context(root / f"{kind}.aesthete.db", cache_dir=root / f"{kind}.thumbs")
            context.settings["welcome_done"] = True
            window = MainWindow(context)
            window.resize(1280, 800)
            window.show()
            handle = window.import_folders([folder])
            _wait(app, lambda h=handle: h.done, 600)
            _wait(app, lambda w=window: not w.model.loading and w.model.rowCount() == repeats + 1)
            ids = window.model.visible_ids()
            for ids_preview in ids:  # the preview cache as after browsing the grid
                context.thumbnails.request_preview(ids_preview)
            _wait(app, lambda c=context, i=ids: all(c.thumbnails.request_preview(x) is not None for x in i))
            for mode, ahead in (("cold", False), ("read-ahead", True)):
                report["cases"][f"{kind} {mode}"] = measure(window, app, ids, repeats, ahead)
                window.show_view("grid")
                window.loupe.full_resolution.clear()
                window.loupe._image_id = None
            window.loupe.full_resolution.wait_idle()
            window.marks.close()
            window.close()
            context.close()
    return report


def summary_rows(report: dict[str, object]) -> list[list[str]]:
    """One table row per case: medians of the first frame and of the time to 100 %."""
    rows = []
    for case, results in report["cases"].items():
        first = statistics.median(r["first_frame_ms"] for r in results)
        total = statistics.median(r["to_100_ms"] for r in results)
        shown = ", ".join(sorted({f"{r['first_frame']} ({r['first_width']} px)" for r in results}))
        rows.append([case, str(len(results)), f"{first:.0f}", shown, f"{total:.0f}",
                     f"{min(r['to_100_ms'] for r in results):.0f}–{max(r['to_100_ms'] for r in results):.0f}"])
    return rows


def main() -> None:
    """Run, print the table, write docs/benchmarks/loupe.md."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    load_before = os.getloadavg()
    report = run(args.repeats)
    load_after = os.getloadavg()
    if args.json:
        print(json.dumps(report, indent=2))
    header = ["case", "steps", "first frame ms", "first frame showed", "key → 100 % ms (median)", "range ms"]
    rows = summary_rows(report)
    table = "\n".join(["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
                      + ["| " + " | ".join(r) + " |" for r in rows])
    print(table)
    jpeg_ahead = statistics.median(r["to_100_ms"] for r in report["cases"]["JPEG read-ahead"])
    verdict = "PASS" if jpeg_ahead <= TARGET_MS else "MISS"
    machine = subprocess.run(["uname", "-srvm"], capture_output=True, text=True).stdout.strip()
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    print(f"JPEG with read-ahead: {jpeg_ahead:.0f} ms (target {TARGET_MS:.0f} ms) -> {verdict}")
    if args.no_write:
        return
    DOC.write_text(
        "# Loupe at 100 % (`benchmarks/loupe.py`)\n\n"
        f"Time from the → key press in the loupe to the next frame's original pixels on screen at 100 % "
        f"(the full-resolution decode swapped in, then Z), for {SIZE[0]}×{SIZE[1]} (24 MP) JPEGs and DNGs "
        "(16-bit RGGB mosaic demosaiced in full by rawpy, with a 1024 px embedded preview), through the "
        "real main window (1280×800, offscreen). *Cold*: the decoded-frame cache emptied before the "
        "key press. *Read-ahead*: the loupe decoded the next frame while the current one was shown "
        "(the user looks at a frame longer than a decode takes). *First frame*: what the view showed when "
        "the key press had been handled and painted.\n\n"
        f"Target: JPEG with read-ahead ≤ {TARGET_MS:.0f} ms → **{verdict}** ({jpeg_ahead:.0f} ms); the "
        "first frame is never empty: it shows the cached preview (cold) or already the original (read-ahead).\n\n"
        f"{table}\n\n"
        f"Machine: `{machine}`, nproc {os.cpu_count()}, Python {platform.python_version()}; {stamp}. "
        f"Load average {load_before[0]:.1f} before, {load_after[0]:.1f} after: the two cores are shared "
        "with other work, so cold decodes include time spent waiting for a CPU.\n\n"
        "Run: `QT_QPA_PLATFORM=offscreen python benchmarks/loupe.py [--repeats N] [--json]`\n",
        encoding="utf-8",
    )


if __name__ == "__main__":
    main()
