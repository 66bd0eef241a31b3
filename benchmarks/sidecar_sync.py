"""XMP sidecar sync benchmark: how long a rescan's sidecar check takes for a large shoot.

N images (empty stand-in files named .CR2, each with a sidecar written by Aesthete) are registered in
a fresh profile; then timed: the first sync (every sidecar read and hashed), a second sync with
nothing changed (size and mtime only), a sync after 1 in 50 sidecars was edited elsewhere, and an
XMP export of every image (each sidecar checked for edits elsewhere, then written).

    python benchmarks/sidecar_sync.py [--images 5000]
"""

from __future__ import annotations

import argparse
import platform
import tempfile
import time
from pathlib import Path

from aesthete_gui.imaging.xmp import write_sidecar
from aesthete_gui.services.library_marks import export
from aesthete_gui.services.sidecar_sync import sync_sidecars
from aesthete_gui.store import ImageUpdate, open_profile


def main() -> None:
    """Print a table of sync times."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images", type=int, default=5000)
    count = parser.parse_args().images
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        updates = []
        for index in range(count):
            image = root / f"IMG_{index:05d}.CR2"
            image.write_bytes(b"raw")
            write_sidecar(image, index % 6, None, None)
            updates.append(ImageUpdate(path=str(image), folder_id=None, status="ok"))
        profile = open_profile(root / "profile.db")
        profile.catalog.write_images(updates)
        rows = []
        for label in (
            "first sync: every sidecar read and hashed",
            "nothing changed: size and mtime only",
        ):
            start = time.perf_counter()
            summary = sync_sidecars(profile)
            rows.append((label, time.perf_counter() - start, summary.adopted))
        for index in range(0, count, 50):
            write_sidecar(root / f"IMG_{index:05d}.CR2", 5, None, "Red")
        start = time.perf_counter()
        summary = sync_sidecars(profile)
        rows.append(
            (
                f"{count // 50} sidecars edited elsewhere",
                time.perf_counter() - start,
                summary.adopted,
            )
        )
        start = time.perf_counter()
        written = export(profile, "xmp").count
        rows.append((f"XMP export: {written} sidecars written", time.perf_counter() - start, 0))
        profile.close()
    print(
        f"{count} images, {platform.processor() or platform.machine()}, Python {platform.python_version()}"
    )
    print(f"| {'case':<45} | seconds | marks taken |")
    print(f"|{'-' * 47}|---------|-------------|")
    for label, seconds, adopted in rows:
        print(f"| {label:<45} | {seconds:7.2f} | {adopted:11d} |")


if __name__ == "__main__":
    main()
