"""Check and measure an installed Aesthete: the desktop bundle (dist/aesthete/) or a venv's bin/ folder.

For the folder given with --bin (holding `aesthete` and `aesthete-gui`): its size on disk (the
whole bundle folder, or the whole venv), `aesthete --help` wall time (first run and median of the
next runs), `aesthete import` of a folder of photo-like JPEGs (and that they are listed afterwards),
and the time from starting `aesthete-gui --screenshot` to the rendered main window saved as PNG
(the process's whole wall time: start-up, profile, window, thumbnails, exit). Every command runs
from a temporary folder with a temporary HOME, so neither the checkout nor the user's profile is
involved. Any failure exits non-zero (this is also the bundle's release check). With --build the
bundle is built first by packaging/build.sh and the build time is reported.

    python benchmarks/bundle_check.py [--bin dist/aesthete] [--build] [--runs 5] [--screenshot OUT.png] [--json]
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

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

PHOTOS = 8


def folder_size(folder: Path) -> tuple[int, int]:
    """Bytes and number of files under `folder` (symbolic links not followed)."""
    total = count = 0
    for root, _dirs, files in os.walk(folder):
        for name in files:
            path = Path(root) / name
            if not path.is_symlink():
                total += path.stat().st_size
                count += 1
    return total, count


def timed(command: list[str], cwd: Path, env: dict[str, str], timeout: float = 600) -> tuple[float, str]:
    """Run `command`; return its wall time and stdout; raise with its output when it fails."""
    start = time.perf_counter()
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    seconds = time.perf_counter() - start
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} exited {result.returncode}:\n{result.stdout}\n{result.stderr}")
    return seconds, result.stdout


def measure(bin_dir: Path, runs: int, screenshot: Path | None) -> dict[str, object]:
    """Size, CLI start-up, folder import and GUI start-up-to-screenshot for one installation."""
    from tests.services.library_images import write_jpeg

    cli, gui = bin_dir / "aesthete", bin_dir / "aesthete-gui"
    for program in (cli, gui):
        if not os.access(program, os.X_OK):
            raise SystemExit(f"{program} is missing or not executable")
    frozen = (bin_dir / "_internal").is_dir()
    size_root = bin_dir if frozen else bin_dir.parent
    size, files = folder_size(size_root)
    with tempfile.TemporaryDirectory(prefix="aesthete-package-") as tmp:
        work = Path(tmp)
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
        env.update(HOME=str(work / "home"), XDG_DATA_HOME=str(work / "home" / "data"),
                   XDG_CACHE_HOME=str(work / "home" / "cache"), XDG_CONFIG_HOME=str(work / "home" / "config"),
                   QT_QPA_PLATFORM="offscreen")  # fmt: skip
        help_times = [timed([str(cli), "--help"], work, env)[0] for _ in range(runs)]
        shoot = work / "shoot"
        shoot.mkdir()
        for seed in range(PHOTOS):
            write_jpeg(shoot / f"frame-{seed}.jpg", seed, size=(1600, 1067))
        profile = work / "profile.aesthete.db"
        import_s, _ = timed([str(cli), "--profile", str(profile), "import", str(shoot)], work, env)
        _, listed = timed([str(cli), "--profile", str(profile), "images"], work, env)
        missing = [seed for seed in range(PHOTOS) if f"frame-{seed}.jpg" not in listed]
        if missing:
            raise RuntimeError(f"imported photographs not listed: {missing}\n{listed}")
        out = screenshot or work / "window.png"
        gui_times = []
        for _ in range(max(1, runs // 2)):
            gui_times.append(timed([str(gui), "--profile", str(profile), "--size", "1280x800",
                                    "--screenshot", str(out)], work, env)[0])  # fmt: skip
        if not out.is_file() or out.stat().st_size < 10_000:
            raise RuntimeError(f"no screenshot was written to {out}")
    return {
        "installation": "bundle" if frozen else "venv",
        "path": str(size_root),
        "size_mib": round(size / 2**20, 1),
        "files": files,
        "help_first_s": round(help_times[0], 2),
        "help_median_s": round(statistics.median(help_times[1:] or help_times), 2),
        "import_s": round(import_s, 2),
        "photos": PHOTOS,
        "gui_first_s": round(gui_times[0], 2),
        "gui_median_s": round(statistics.median(gui_times[1:] or gui_times), 2),
    }


def build_bundle() -> float:
    """Run packaging/build.sh; return its wall time in seconds."""
    start = time.perf_counter()
    subprocess.run(["bash", str(REPO / "packaging" / "build.sh")], check=True)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    """Measure, print a table (or JSON), exit non-zero on any failure."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", type=Path, default=REPO / "dist" / "aesthete", help="folder with aesthete and aesthete-gui")
    parser.add_argument("--build", action="store_true", help="build the bundle first with packaging/build.sh")
    parser.add_argument("--runs", type=int, default=5, help="CLI start-up runs (GUI: half as many)")
    parser.add_argument("--screenshot", type=Path, help="keep the main window's screenshot here")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    build_s = build_bundle() if args.build else None
    result = measure(args.bin.resolve(), args.runs, args.screenshot)
    result.update(build_s=None if build_s is None else round(build_s, 1), machine=f"{platform.system()} {platform.release()} "
                  f"{platform.machine()}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}",
                  date=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"))  # fmt: skip
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    rows = [
        ("installation", f"{result['installation']}: {result['path']}"),
        ("size on disk", f"{result['size_mib']} MiB in {result['files']} files"),
        ("build (packaging/build.sh)", "not run" if build_s is None else f"{result['build_s']} s"),
        ("aesthete --help", f"first {result['help_first_s']} s, then median {result['help_median_s']} s"),
        (f"aesthete import ({PHOTOS} JPEGs)", f"{result['import_s']} s"),
        ("aesthete-gui --screenshot", f"first {result['gui_first_s']} s, then median {result['gui_median_s']} s"),
        ("machine", str(result["machine"])),
        ("date", str(result["date"])),
    ]
    width = max(len(name) for name, _ in rows)
    print("\n".join(f"{name.ljust(width)}  {value}" for name, value in rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
