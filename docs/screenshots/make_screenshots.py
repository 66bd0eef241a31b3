"""Make the user guide's screenshots: a sample shoot from scikit-image's bundled photographs (public
domain / CC0) with bursts, imported, scored with the built-in scorer, marked, with some choices;
then every screen at 1280×800 and 1920×1080 via QWidget.grab().

    QT_QPA_PLATFORM=offscreen python docs/screenshots/make_screenshots.py [--out docs/screenshots]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from datetime import datetime, timedelta
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

SIZES = ((1280, 800), (1920, 1080))
PHOTOS = (
    "astronaut.png", "chelsea.png", "coffee.png", "rocket.jpg", "motorcycle_left.png",
    "hubble_deep_field.jpg", "retina.jpg", "camera.png", "moon.png", "grass.png", "brick.png",
    "coins.png", "ihc.png", "gravel.png", "horse.png", "cell.png",
)  # fmt: skip
BURSTS = {"chelsea.png": 5, "astronaut.png": 4, "coffee.png": 3}


def _save(img, path: Path, when: datetime, sequence: int) -> None:
    from PIL import Image

    exif = Image.Exif()
    exif[0x010F] = "Aesthete"  # Make
    exif[0x0110] = "Sample Camera"  # Model
    ifd = exif.get_ifd(0x8769)
    ifd[0x9003] = when.strftime("%Y:%m:%d %H:%M:%S")  # DateTimeOriginal
    ifd[0x9291] = f"{when.microsecond // 10000:02d}"  # SubSecTimeOriginal
    ifd[0x829A] = (1, 250)  # ExposureTime
    ifd[0x829D] = (56, 10)  # FNumber
    ifd[0x8827] = 400  # ISO
    ifd[0x920A] = (50, 1)  # FocalLength
    img.convert("RGB").save(path, quality=92, exif=exif)


def build_shoot(folder: Path, scale: float = 1.0) -> None:
    """Write the sample shoot: single frames minutes apart and three bursts of near-identical frames."""
    import skimage
    from PIL import Image, ImageFilter

    data = Path(skimage.__file__).parent / "data"
    folder.mkdir(parents=True, exist_ok=True)
    when = datetime(2026, 6, 13, 15, 0, 0)
    sequence = 100
    for name in PHOTOS:
        source = Image.open(data / name).convert("RGB")
        side = 900 * scale
        if max(source.size) < side:
            factor = side / max(source.size)
            source = source.resize((round(source.width * factor), round(source.height * factor)))
        frames = BURSTS.get(name, 1)
        for frame in range(frames):
            img = source
            if frames > 1:
                dx = frame * max(4, source.width // 60)
                img = source.crop((dx, 0, source.width - (frames - frame) * 4, source.height))
                if frame == 1:
                    img = img.filter(ImageFilter.GaussianBlur(3))  # the soft frame of the burst
            stem = Path(name).stem
            suffix = f"_{frame + 1}" if frames > 1 else ""
            _save(img, folder / f"{stem}{suffix}.jpg", when, sequence)
            when += timedelta(milliseconds=300)
            sequence += 1
        when += timedelta(minutes=3)


def settle(window) -> None:
    """Wait for jobs, rows and thumbnails (see launch.settle)."""
    from aesthete_gui.qt.launch import settle as wait_idle

    wait_idle(window, 120)


def grab(widget, out: Path, name: str, size: tuple[int, int]) -> Path:
    """Save one screenshot as PNG."""
    path = out / f"{name}-{size[0]}x{size[1]}.png"
    if not widget.grab().save(str(path)):
        raise OSError(f"could not save {path}")
    print(path.relative_to(REPO) if path.is_relative_to(REPO) else path)
    return path


def prepare_profile(root: Path) -> Path:
    """Import the shoot, score it, mark some frames, record some choices, train the taste adapter."""
    from aesthete_gui.qt.context import build_context
    from aesthete_gui.qt.main_window import MainWindow

    build_shoot(root / "shoot")
    profile_path = root / "profile.aesthete.db"
    context = build_context(profile_path)
    context.settings["welcome_done"] = True
    window = MainWindow(context)
    window.show()
    window.import_folders([root / "shoot"])
    settle(window)
    window.score_library()
    settle(window)
    rows = {Path(r.path).stem: r.image_id for r in window.model.all_rows()}
    marks = window.marks
    marks.mark([rows["astronaut_1"], rows["chelsea_3"], rows["rocket"]], stars=4)
    marks.mark([rows["astronaut_1"], rows["rocket"], rows["coffee_3"]], flag="pick")
    marks.mark([rows["chelsea_2"], rows["astronaut_2"]], flag="reject")
    marks.mark([rows["hubble_deep_field"]], stars=5, label="Blue")
    marks.mark([rows["coffee_1"]], stars=3, label="Red")
    marks.mark([rows["moon"]], label="Yellow", stars=2)
    marks.wait_written()
    ids = sorted(rows.values())
    profile = context.profile
    for i, a in enumerate(ids[:-1]):
        b = ids[(i * 7 + 3) % len(ids)]
        if a != b:
            profile.choices.add(a, b, "a" if (a + b) % 3 else "b", app_state={"sample": True})
    marks.close()
    window.close()
    context.close()
    profile.close()
    return profile_path


def copy_profile(source: Path, folder: Path) -> Path:
    """A fresh copy of a closed profile with its settings, thumbnails and models (one per size)."""
    import shutil

    folder.mkdir(parents=True, exist_ok=True)
    for item in source.parent.iterdir():
        if item.name.startswith(source.name):
            target = folder / item.name
            if item.is_dir():
                shutil.copytree(item, target)
            else:
                shutil.copy2(item, target)
    return folder / source.name


def shoot_welcome(out: Path, size: tuple[int, int]) -> Path:
    """The first-run welcome over a new, empty profile."""
    from PySide6.QtWidgets import QApplication

    from aesthete_gui.qt.context import build_context
    from aesthete_gui.qt.main_window import MainWindow
    from aesthete_gui.qt.theme import apply_theme

    with tempfile.TemporaryDirectory() as empty:
        context = build_context(Path(empty) / "new.aesthete.db")
        apply_theme(QApplication.instance(), "dark")
        window = MainWindow(context)
        window.resize(*size)
        window.show()
        settle(window)  # the welcome's built-in scorer check is a job: its result is on screen
        path = grab(window, out, "welcome", size)
        window.marks.close()
        window.close()
        context.close()
    return path


def shoot_all(profile_path: Path, out: Path, sizes=SIZES) -> list[Path]:
    """Every screen at every size."""
    from PySide6.QtCore import QPointF
    from PySide6.QtWidgets import QApplication

    from aesthete_gui.qt.context import build_context
    from aesthete_gui.qt.dialogs.model_manager import ModelManagerDialog
    from aesthete_gui.qt.main_window import MainWindow
    from aesthete_gui.qt.theme import apply_theme
    from aesthete_gui.qt.widgets.taste_panel import TastePanel

    app = QApplication.instance()
    saved: list[Path] = []
    for size in sizes:
        saved.append(shoot_welcome(out, size))

        copy_dir = tempfile.TemporaryDirectory()
        context = build_context(copy_profile(profile_path, Path(copy_dir.name)))
        window = MainWindow(context)
        window.resize(*size)
        window.show()
        settle(window)
        rows = {Path(r.path).stem: r.image_id for r in window.model.all_rows()}
        window.grid.select_image(rows["astronaut_1"])
        settle(window)
        saved.append(grab(window, out, "grid", size))

        window.grid.select_image(rows["chelsea_2"])  # the soft frame of a burst: a suggested reject
        settle(window)
        saved.append(grab(window, out, "grid-culling", size))

        window.filter_bar.collapse.setChecked(True)
        window.filter_bar.sort.setCurrentIndex(window.filter_bar.sort.findData("overall"))
        window.grid.select_image(rows["hubble_deep_field"])
        settle(window)
        saved.append(grab(window, out, "grid-bursts-by-score", size))
        keep_best = window._keep_best_of_bursts()  # what "keep the best of each burst" would reject
        if keep_best is not None:
            settle(window)
            saved.append(grab(keep_best, out, "keep-best-dialog", size))
            keep_best.reject()
        export = window._choose_and_copy(picks_only=True)
        if export is not None and size == sizes[0]:
            export.folder_edit.setText("/home/you/Pictures/2026-06-13 delivery")
            export.move_radio.setChecked(True)
            settle(window)
            path = out / "export-picks-dialog.png"
            export.grab().save(str(path))
            saved.append(path)
        if export is not None:
            export.reject()
        window.filter_bar.collapse.setChecked(False)
        window.filter_bar.sort.setCurrentIndex(window.filter_bar.sort.findData("capture_time"))

        from aesthete_gui.qt.launch import wait_until

        window.open_in_loupe(rows["rocket"])
        settle(window)
        loupe = window.loupe
        wait_until(lambda lv=loupe: lv.showing_full_resolution and lv.histogram.histogram is not None, 60)
        saved.append(grab(window, out, "loupe", size))
        window.open_in_loupe(rows["astronaut_1"])  # the face outlined, coloured by its eyes
        wait_until(lambda lv=loupe: lv.showing_full_resolution, 60)
        settle(window)
        saved.append(grab(window, out, "loupe-faces", size))
        window.open_in_loupe(rows["chelsea_3"])
        wait_until(lambda lv=loupe: lv.showing_full_resolution, 60)
        loupe.toggle_actual_size(1.0, QPointF(0.45, 0.4))  # the cat's eyes, at 100 %
        loupe.set_peaking(True)
        wait_until(lambda lv=loupe: lv.view._overlay_item.isVisible(), 60)
        settle(window)
        saved.append(grab(window, out, "loupe-100-peaking", size))
        loupe.set_peaking(False)
        loupe.view.fit()

        context.selection.set_image_ids([rows[f"chelsea_{i}"] for i in range(1, 6)])
        window.show_view("survey")
        settle(window)
        saved.append(grab(window, out, "survey", size))

        window.show_view("compare")
        settle(window)
        saved.append(grab(window, out, "compare", size))

        burst = [rows[f"chelsea_{i}"] for i in range(1, 6)]
        context.selection.set_image_ids(burst)
        window.show_view("set")
        use_selection = getattr(window.set_view, "use_selection", None)
        if callable(use_selection):
            use_selection()
        settle(window)
        saved.append(grab(window, out, "set", size))

        apply_theme(app, "light")
        window.show_view("grid")
        window.grid.select_image(rows["coffee_1"])
        settle(window)
        saved.append(grab(window, out, "grid-light", size))
        apply_theme(app, "dark")

        window.show_view("grid")
        with tempfile.TemporaryDirectory() as more:
            build_shoot(Path(more) / "day two", scale=2.5)
            handle = window.import_folders([Path(more) / "day two"])
            wait_until(lambda h=handle: h.done or (h.last_progress is not None and h.last_progress.done >= 4), 60)
            saved.append(grab(window, out, "jobs", size))
            handle.cancel()
            settle(window)

        dialog = ModelManagerDialog(context, window)
        dialog.show()
        settle(window)
        saved.append(grab(dialog, out, "model-manager", size))
        dialog.close()

        panel = TastePanel(context)
        panel.resize(min(1100, size[0] - 100), min(760, size[1] - 80))
        panel.show()
        settle(window)
        saved.append(grab(panel, out, "taste-panel", size))
        panel.close()

        window.marks.close()
        window.close()
        context.close()
        context.profile.close()
        copy_dir.cleanup()
    return saved


def main(argv: list[str] | None = None) -> int:
    """Build the sample profile in a temporary folder and write every screenshot to --out."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent)
    parser.add_argument("--size", action="append", help="only this size, e.g. 1280x800")
    parser.add_argument("--only-welcome", action="store_true", help="only the welcome screen (no sample shoot)")
    args = parser.parse_args(argv)
    from PySide6.QtWidgets import QApplication

    from aesthete_gui.qt.launch import keep_ui_responsive

    app = QApplication.instance() or QApplication([])
    app.setApplicationName("Aesthete")
    keep_ui_responsive()
    sizes = [tuple(int(v) for v in s.split("x")) for s in args.size] if args.size else SIZES
    args.out.mkdir(parents=True, exist_ok=True)
    if args.only_welcome:
        for size in sizes:
            shoot_welcome(args.out, size)
        return 0
    with tempfile.TemporaryDirectory(prefix="aesthete-shots-") as tmp:
        # the window layout remembered by the screenshots never touches the user's own
        os.environ["AESTHETE_STATE_FILE"] = str(Path(tmp) / "session.json")
        profile = prepare_profile(Path(tmp))
        shoot_all(profile, args.out, sizes)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
