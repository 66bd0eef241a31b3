"""Starts the application: parses GUI options, builds QApplication + qasync loop, shows the window.

`--screenshot OUT.png` loads everything (import, rows, thumbnails), renders the window, saves the
image and exits: used for the user guide and for checks.

A profile that cannot be used (not a profile, damaged, read-only, a full disk...) is reported in a
dialog instead of leaving the user without a window; any `AestheteError` that escapes a slot later
shows the same dialog, and the app keeps running.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
import time
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from PySide6.QtCore import QEventLoop, QTimer
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget

from aesthete_gui.errors import AestheteError
from aesthete_gui.qt.gc_guard import collect_on_gui_thread
from aesthete_gui.qt.theme import THEMES, apply_theme
from aesthete_gui.settings import ProfilePathTextError, gui_profile_path

if TYPE_CHECKING:
    from aesthete_gui.qt.context import AppContext
    from aesthete_gui.qt.main_window import MainWindow

# kept here (not imported from main_window) so that importing this module stays light
VIEWS: tuple[str, ...] = ("grid", "loupe", "compare", "set")

log = logging.getLogger(__name__)

SCREENSHOT_TIMEOUT_S = 120.0


def build_parser() -> argparse.ArgumentParser:
    """The options of `aesthete-gui`."""
    parser = argparse.ArgumentParser(prog="aesthete-gui", description="Aesthete desktop app.")
    parser.add_argument("--profile", metavar="PATH", help="profile file (default: per-user profile)")
    parser.add_argument("--open", metavar="DIR", action="append", help="import this folder on start")
    parser.add_argument("--screenshot", metavar="OUT.png", help="save a screenshot after loading and exit")
    parser.add_argument("--view", choices=(*VIEWS, "welcome"), help="view to show first")
    parser.add_argument("--size", metavar="WxH", type=_size, help="window size, e.g. 1280x800")
    parser.add_argument("--theme", choices=THEMES, help="theme for this run (default: the saved one)")
    return parser


def _size(text: str) -> tuple[int, int]:
    try:
        width, height = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected WxH such as 1280x800, got {text!r}") from None
    if width < 320 or height < 240:
        raise argparse.ArgumentTypeError(f"window size {text} is too small")
    return width, height


UI_SWITCH_INTERVAL_S = 0.002
"""How often (s) a worker thread running Python must offer the GIL back; shorter keeps the UI lively."""


def keep_ui_responsive() -> None:
    """Make Python hand the GIL to the UI thread more often than its 5 ms default."""
    sys.setswitchinterval(UI_SWITCH_INTERVAL_S)


def open_window(profile_path: Path, previous: MainWindow | None = None) -> MainWindow:
    """A main window on the profile at `profile_path`; replaces `previous` (same size), if given."""
    from aesthete_gui.qt.context import build_context
    from aesthete_gui.qt.main_window import MainWindow
    from aesthete_gui.store.errors import profile_errors

    with profile_errors(profile_path, os_errors=True):  # e.g. its folder cannot be created
        context = build_context(profile_path)
    window = MainWindow(context)
    window.profile_requested.connect(lambda path: switch_window(Path(path), window))
    if previous is not None:
        app = QApplication.instance()
        if isinstance(app, QApplication):
            apply_theme(app, context.settings.get("theme") or "dark")
        window.resize(previous.size())
        window.show()  # shown before the old one closes, so the application keeps running
        previous.close()  # its jobs are cancelled and its threads stop (MainWindow.closeEvent)
    _open_windows[:] = [window]  # keep a Python reference to the window in use
    return window


_open_windows: list[MainWindow] = []


def switch_window(profile_path: Path, current: MainWindow) -> MainWindow:
    """Replace `current` by a window on `profile_path`; keep it (and say why) when that fails."""
    try:
        return open_window(profile_path, current)
    except AestheteError as error:
        show_error(error, current, title="Cannot open this profile")
        return current


def show_error(error: BaseException, parent: QWidget | None = None, title: str = "Aesthete") -> None:
    """A modal dialog with the error's message (what went wrong and what to do)."""
    log.error("%s: %s", title, error)
    box = QMessageBox(QMessageBox.Icon.Critical, title, str(error), QMessageBox.StandardButton.Ok, parent)
    box.exec()


def known_gui_error(error: BaseException) -> AestheteError | None:
    """The user-facing error behind `error` (a profile error raised as plain sqlite3), or None for a bug."""
    import sqlite3

    if isinstance(error, AestheteError):
        return error
    if isinstance(error, sqlite3.Error):
        from aesthete_gui.store.errors import profile_error

        window = _open_windows[0] if _open_windows else None
        return profile_error(error, window.context.profile_path if window is not None else None)
    return None


def install_error_dialog() -> None:
    """Show a dialog for user-facing errors that escape a slot; bugs keep Python's traceback report."""
    previous = sys.excepthook

    def hook(kind: type[BaseException], error: BaseException, trace: TracebackType | None) -> None:
        known = known_gui_error(error)
        if known is None:
            previous(kind, error, trace)
            return
        show_error(known, next((w for w in _open_windows if w.isVisible()), None))

    sys.excepthook = hook


def create_window(args: argparse.Namespace, app: QApplication) -> tuple[AppContext, MainWindow]:
    """Open the profile, build the context and the main window, apply size, theme and folders."""
    keep_ui_responsive()
    app.setApplicationName("Aesthete")
    app.setOrganizationName("Aesthete")
    app.setDesktopFileName("org.aesthete.Aesthete")
    icon = app_icon_path()
    if icon is not None:
        from PySide6.QtGui import QIcon

        app.setWindowIcon(QIcon(str(icon)))
    window = open_window(gui_profile_path(args.profile))
    window.remembers_session = not args.screenshot
    context = window.context
    apply_theme(app, args.theme or context.settings.get("theme") or "dark")
    if args.size:
        window.resize(*args.size)
    window.show()
    warn_if_read_only(window)
    for folder in args.open or []:
        path = Path(folder).expanduser()
        if not path.is_dir():
            window.show_message(f"Not a folder: {path}")
            continue
        window.import_folders([path])
    if args.view:
        window.show_view(args.view)
    window.focus_current_view()  # the keys go to the photographs, not to the first panel in tab order
    return context, window


def warn_if_read_only(window: MainWindow) -> str | None:
    """Say in the status bar, for a whole minute, that changes to this profile cannot be saved."""
    from aesthete_gui.store.errors import read_only_reason

    path = window.context.profile_path
    why = read_only_reason(path) if path is not None else None
    if why is not None:
        window.show_message(f"This profile is read-only ({why}): marks and choices cannot be saved", 60_000)
    return why


def app_icon_path() -> Path | None:
    """The application icon shipped with the desktop files (None when it is missing)."""
    from aesthete_gui.resources import resource_file

    try:
        return resource_file("desktop", "org.aesthete.Aesthete.svg")
    except FileNotFoundError:
        return None


def wait_until(condition: Callable[[], bool], timeout_s: float, poll_ms: int = 50) -> bool:
    """Run the Qt event loop until `condition()` holds (True) or the timeout passes (False)."""
    deadline = time.monotonic() + timeout_s
    loop = QEventLoop()
    while not condition():
        if time.monotonic() > deadline:
            return False
        QTimer.singleShot(poll_ms, loop.quit)
        loop.exec()
    return True


def settle(window: MainWindow, timeout_s: float = SCREENSHOT_TIMEOUT_S) -> bool:
    """Wait until jobs ended, rows loaded and the thumbnails / previews on screen arrived."""
    context = window.context

    def idle() -> bool:
        # the last batch of an import reloads the grid up to LIBRARY_RELOAD_MS after the job ended
        relay = getattr(context, "events", None)
        reload_waiting = relay is not None and relay.library_reload_pending
        return (not context.runner.active_jobs() and not window.model.loading and not reload_waiting
                and context.thumbnails.pending_count() == 0)  # fmt: skip

    ok = wait_until(idle, timeout_s)
    wait_until(lambda: False, 0.3)  # let queued repaints and late signals land
    return ok and wait_until(idle, timeout_s)


def take_screenshot(window: MainWindow, out: Path, view: str | None) -> Path:
    """Settle, switch to `view`, settle again and save the window as PNG."""
    settle(window)
    if view == "set" and len(window.context.selection.image_ids()) < 2:
        ids = window.model.visible_ids()[:4]
        window.context.selection.set_image_ids(ids)
    if view:
        window.show_view(view)
        use_selection = getattr(window.set_view, "use_selection", None)
        if view == "set" and callable(use_selection):
            use_selection()
        settle(window)
    if window.current_view == "grid" and window.model.rowCount():
        # request the thumbnails of every cell on screen, then wait for them
        window.grid.viewport().update()
        settle(window)
    out.parent.mkdir(parents=True, exist_ok=True)
    if not window.grab().save(str(out)):
        raise OSError(f"could not write screenshot {out}")
    return out


def run_app(argv: list[str]) -> int:
    """Run the GUI until the main window closes; returns the exit code."""
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    running = QApplication.instance()
    app = running if isinstance(running, QApplication) else QApplication(sys.argv[:1])
    collect_on_gui_thread(app)  # Qt objects in reference cycles die on the GUI thread, never a worker's
    try:
        context, window = create_window(args, app)
    except (AestheteError, ProfilePathTextError) as error:
        if args.screenshot:  # no one to click a dialog away: say it on the terminal
            print(f"aesthete-gui: error: {error}", file=sys.stderr)
        else:
            show_error(error, title="Cannot open the profile")
        return 2
    if args.screenshot:
        try:
            out = take_screenshot(window, Path(args.screenshot), args.view)
            print(f"screenshot saved: {out}")
        finally:
            window.close()
            context.close()
            _settle(context)
        return 0

    import qasync

    install_error_dialog()

    async def until_closed() -> None:
        closed = asyncio.Event()
        app.lastWindowClosed.connect(closed.set)
        await closed.wait()

    qasync.run(until_closed())
    for shown in _open_windows:
        _settle(shown.context)
    return 0


def _settle(context: AppContext) -> None:
    """At exit, copy the session's changes from the profile's -wal into the file itself: the window
    keeps its connections open to the end, so the file alone held none of them (a 4 KB profile with
    everything in its -wal), and a backup copying only the file lost the session."""
    from aesthete_gui.store.errors import ProfileError

    with suppress(ProfileError):  # the disk gone at exit: the -wal keeps the changes, SQLite replays it
        context.profile.settle()
