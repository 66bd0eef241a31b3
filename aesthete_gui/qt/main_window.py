"""The main window: library panel, Grid / Loupe / Compare / Set views, inspector, jobs, menus, status."""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QFileDialog,
    QInputDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QStackedWidget,
    QTabBar,
    QVBoxLayout,
    QWidget,
)

from aesthete_gui.engine.scorers import BUILTIN
from aesthete_gui.qt.context import AppContext
from aesthete_gui.qt.ingest_action import ingest_from_card
from aesthete_gui.qt.item_models import FilterState, ImageListModel
from aesthete_gui.qt.sidecar_watch import SidecarWatcher
from aesthete_gui.qt.task_runner import JobHandle
from aesthete_gui.qt.theme import apply_theme
from aesthete_gui.qt.undo import MarkController
from aesthete_gui.qt.widgets.compare_view import CompareView
from aesthete_gui.qt.widgets.filter_bar import FilterBar
from aesthete_gui.qt.widgets.grid_view import GridView
from aesthete_gui.qt.widgets.inspector import Inspector
from aesthete_gui.qt.widgets.jobs_panel import JobsPanel
from aesthete_gui.qt.widgets.library_panel import LibraryPanel
from aesthete_gui.qt.widgets.loupe_view import LoupeView
from aesthete_gui.qt.widgets.set_view import SetView
from aesthete_gui.qt.widgets.welcome import WelcomePage
from aesthete_gui.qt.window_jobs import JobMenuMixin

log = logging.getLogger(__name__)

VIEWS: tuple[str, ...] = ("grid", "loupe", "compare", "set")
VIEW_TITLES: dict[str, str] = {"grid": "Grid", "loupe": "Loupe", "compare": "Compare", "set": "Set"}


class MainWindow(JobMenuMixin, QMainWindow):
    """Aesthete's one window; every widget gets the shared AppContext."""

    view_changed = Signal(str)
    profile_requested = Signal(object)  # Path: the launcher opens it in a new window

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.setObjectName("mainWindow")
        self.setWindowTitle(self._title())
        self.resize(1280, 800)
        self.setMinimumSize(QSize(960, 600))
        self.setAcceptDrops(True)  # drop a folder on the window to import it
        self.model = ImageListModel(context, self)
        self.marks = MarkController(context, current=self._marks_shown, parent=self)
        self.marks.failed.connect(lambda reason: self.show_message(f"Could not save marks: {reason}"))
        self.sidecar_watch = SidecarWatcher(context, self)  # sidecar edits made elsewhere, on focus

        self.filter_bar = FilterBar(self)
        self.grid = GridView(context, self.model, self.marks, self)
        self.loupe = LoupeView(context, self.model, self.marks, self)
        self.compare = CompareView(context, self)
        self.set_view = SetView(context, self)
        self.welcome = WelcomePage(self)

        grid_page = QWidget(self)
        grid_layout = QVBoxLayout(grid_page)
        grid_layout.setContentsMargins(0, 0, 0, 0)
        grid_layout.setSpacing(0)
        grid_layout.addWidget(self.filter_bar)
        grid_layout.addWidget(self.grid, 1)
        self._pages: dict[str, QWidget] = {
            "grid": grid_page,
            "loupe": self.loupe,
            "compare": self.compare,
            "set": self.set_view,
            "welcome": self.welcome,
        }
        self.stack = QStackedWidget(self)
        for page in self._pages.values():
            self.stack.addWidget(page)
        self.tabs = QTabBar(self)
        self.tabs.setObjectName("viewTabs")
        self.tabs.setDrawBase(False)
        self.tabs.setExpanding(False)
        for key in VIEWS:
            self.tabs.addTab(VIEW_TITLES[key])
        self.tabs.currentChanged.connect(lambda index: self.show_view(VIEWS[index]))
        central = QWidget(self)
        central_layout = QVBoxLayout(central)
        central_layout.setContentsMargins(0, 4, 0, 0)
        central_layout.setSpacing(0)
        central_layout.addWidget(self.tabs)
        central_layout.addWidget(self.stack, 1)
        self.setCentralWidget(central)

        self.library = LibraryPanel(context, self.model, self)
        self.library.setMinimumWidth(200)
        self.inspector = Inspector(context, self)
        self.inspector.setMinimumWidth(300)
        self.jobs = JobsPanel(context.runner, self)
        self.jobs.setMinimumHeight(110)
        self.library_dock = self._dock("Library", self.library, Qt.DockWidgetArea.LeftDockWidgetArea)
        self.inspector_dock = self._dock("Inspector", self.inspector, Qt.DockWidgetArea.RightDockWidgetArea)
        self.jobs_dock = self._dock("Jobs", self.jobs, Qt.DockWidgetArea.RightDockWidgetArea)
        self.splitDockWidget(self.inspector_dock, self.jobs_dock, Qt.Orientation.Vertical)
        self.resizeDocks([self.library_dock, self.inspector_dock], [220, 320], Qt.Orientation.Horizontal)
        self.resizeDocks([self.inspector_dock, self.jobs_dock], [560, 160], Qt.Orientation.Vertical)

        self.count_label = QLabel(self)
        self.jobs_label = QLabel(self)
        self.model_label = QLabel(self)
        for label in (self.count_label, self.jobs_label, self.model_label):
            self.statusBar().addPermanentWidget(label)

        self._build_menus()
        self.filter_bar.filter_changed.connect(self.model.set_filter)
        self.filter_bar.sort_changed.connect(self.model.set_sort)
        self.filter_bar.save_requested.connect(self.save_filter)
        self.library.scope_selected.connect(self._scope_selected)
        self.library.saved_filter_selected.connect(self.apply_saved_filter)
        self.library.profile_switch_requested.connect(self.switch_profile)
        self.library.profile_selected.connect(self.open_profile)
        self.grid.open_requested.connect(self.open_in_loupe)
        self.loupe.back_requested.connect(lambda: self.show_view("grid"))
        self.welcome.open_folder_requested.connect(self.choose_and_import)
        self.welcome.dismissed.connect(self._welcome_dismissed)
        self.model.loaded.connect(self._library_loaded)
        self.model.arranged.connect(self._update_counts)
        self.marks.applied.connect(self._update_counts)
        context.selection.changed.connect(self._update_counts)
        context.signals.status_message.connect(self.show_message)
        context.signals.settings_changed.connect(self._setting_changed)
        context.runner.job_added.connect(self._job_added)
        context.runner.job_ended.connect(self._update_jobs)
        self._current_view = "grid"
        self._last_partial_reload = 0.0
        self.stack.setCurrentWidget(self._pages["grid"])
        self._update_model_label()
        self._update_jobs()
        self.model.reload()

    # building --------------------------------------------------------------------------------

    def _title(self) -> str:
        path = self.context.profile_path
        return f"Aesthete — {path.name}" if path else "Aesthete"

    def _dock(self, title: str, widget: QWidget, area: Qt.DockWidgetArea) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(f"{title.lower()}Dock")
        dock.setWidget(widget)
        dock.setFeatures(
            QDockWidget.DockWidgetFeature.DockWidgetClosable | QDockWidget.DockWidgetFeature.DockWidgetMovable
        )
        self.addDockWidget(area, dock)
        return dock

    def _action(self, menu, text: str, slot, shortcut: str | QKeySequence.StandardKey | None = None) -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        action.triggered.connect(slot)
        menu.addAction(action)
        return action

    def _build_menus(self) -> None:
        bar = self.menuBar()
        file_menu = bar.addMenu("&File")
        self.open_action = self._action(file_menu, "&Open folder…", self.choose_and_import, QKeySequence.StandardKey.Open)
        self._action(file_menu, "Rescan library", self.rescan_library, "F5")
        self._action(file_menu, "&Ingest from card…", lambda: ingest_from_card(self))
        self._action(file_menu, "Open &profile…", self.switch_profile)
        file_menu.addSeparator()
        self._action(file_menu, "&Quit", self.close, QKeySequence.StandardKey.Quit)

        edit_menu = bar.addMenu("&Edit")
        self.undo_action = self._action(edit_menu, "&Undo", self.undo, QKeySequence.StandardKey.Undo)
        self.redo_action = self._action(edit_menu, "&Redo", self.redo, QKeySequence.StandardKey.Redo)
        edit_menu.addSeparator()
        self._action(edit_menu, "Select &all", self.grid.selectAll, QKeySequence.StandardKey.SelectAll)
        self.xmp_action = self._action(edit_menu, "Write marks to &XMP sidecars", self._toggle_xmp)
        self.xmp_action.setCheckable(True)
        self.xmp_action.setChecked(bool(self.context.settings.get("xmp_enabled", True)))

        view_menu = bar.addMenu("&View")
        for number, key in enumerate(VIEWS, start=1):
            self._action(view_menu, VIEW_TITLES[key], lambda _=False, k=key: self.show_view(k), f"Ctrl+{number}")
        view_menu.addSeparator()
        for dock in (self.library_dock, self.inspector_dock, self.jobs_dock):
            view_menu.addAction(dock.toggleViewAction())
        view_menu.addSeparator()
        self.theme_action = self._action(view_menu, "&Light theme", self._toggle_theme)
        self.theme_action.setCheckable(True)
        self.theme_action.setChecked(self.context.settings.get("theme") == "light")
        self._action(view_menu, "Larger thumbnails", lambda: self.grid.set_cell_size(self.grid.preferred_cell + 32), "Ctrl+=")
        self._action(view_menu, "Smaller thumbnails", lambda: self.grid.set_cell_size(self.grid.preferred_cell - 32), "Ctrl+-")

        score_menu = bar.addMenu("&Scoring")
        self._action(score_menu, "Score &selection", self.score_selection, "Ctrl+R")
        self._action(score_menu, "Score &library", self.score_library, "Ctrl+Shift+R")
        self.scorer_menu = score_menu.addMenu("Score &with")
        self.scorer_menu.aboutToShow.connect(lambda: self.fill_scorer_menu(self.scorer_menu))
        score_menu.addSeparator()
        self._action(score_menu, "&Distil a fast scorer from the judge…", self.distil)
        self._action(score_menu, "&Train my taste adapter", self.train_adapter, "Ctrl+T")
        self._action(score_menu, "Taste and scores &panel…", self.show_taste_panel)

        models_menu = bar.addMenu("&Models")
        self._action(models_menu, "&Model manager…", self.open_model_manager, "Ctrl+M")

        help_menu = bar.addMenu("&Help")
        self._action(help_menu, "&Welcome", lambda: self.show_view("welcome"))
        self._action(help_menu, "&Keyboard shortcuts", self.show_shortcuts, "F1")

    # views -----------------------------------------------------------------------------------

    @property
    def current_view(self) -> str:
        """The view shown: grid, loupe, compare, set or welcome."""
        return self._current_view

    def show_view(self, key: str) -> None:
        """Switch the central area to `key` (one of VIEWS, or "welcome")."""
        if key not in self._pages:
            raise ValueError(f"unknown view {key!r}; expected one of {', '.join(self._pages)}")
        self._current_view = key
        self.stack.setCurrentWidget(self._pages[key])
        if key in VIEWS:
            self.tabs.blockSignals(True)
            self.tabs.setCurrentIndex(VIEWS.index(key))
            self.tabs.blockSignals(False)
        self.tabs.setVisible(key != "welcome")
        if key == "loupe":
            current = self.context.selection.current()
            if current is None and self.model.rowCount():
                current = self.model.row_at(0).image_id
            self.loupe.show_image(current)
            self.loupe.setFocus()
        elif key == "grid":
            self.grid.setFocus()
        elif key == "compare":
            self.compare.setFocus()
        elif key == "set":
            self.set_view.setFocus()
        self.view_changed.emit(key)

    def open_in_loupe(self, image_id: int) -> None:
        """Show one image large."""
        self.context.selection.set_image_ids([image_id])
        self.show_view("loupe")
        self.loupe.show_image(image_id)

    def _library_loaded(self) -> None:
        self._update_counts()
        empty = self.model.total_count() == 0
        if empty and not self.context.settings.get("welcome_done"):
            self.show_view("welcome")
        elif self._current_view == "welcome" and not empty:
            self.show_view("grid")

    def _welcome_dismissed(self) -> None:
        self.context.set_setting("welcome_done", True)
        self.show_view("grid")

    # culling ---------------------------------------------------------------------------------

    def _marks_shown(self, image_id: int) -> tuple[int, str | None, str | None] | None:
        row = self.model.row_for(image_id)
        return None if row is None else (row.stars, row.flag, row.label)

    def undo(self) -> None:
        """Take back the last mark or choice, whichever view it was made in (one history)."""
        stack = self.context.undo_stack
        if stack.canUndo():
            self.show_message(f"Undo: {stack.undoText()}")
            stack.undo()
        else:
            self.show_message("Nothing to undo.")

    def redo(self) -> None:
        """Redo the last undone mark or choice."""
        stack = self.context.undo_stack
        if stack.canRedo():
            self.show_message(f"Redo: {stack.redoText()}")
            stack.redo()

    def _toggle_xmp(self, checked: bool) -> None:
        self.context.set_setting("xmp_enabled", bool(checked))

    # filters ---------------------------------------------------------------------------------

    def _scope_selected(self, folder_id: int | None, burst_id: int | None) -> None:
        self.filter_bar.set_scope(folder_id, burst_id)
        if self._current_view not in ("grid", "loupe"):
            self.show_view("grid")

    def save_filter(self) -> None:
        """Ask for a name and keep the current filter under it (shown in the library panel)."""
        name, ok = QInputDialog.getText(self, "Save filter", "Name of this filter:")
        if ok and name.strip():
            saved = dict(self.context.settings.get("saved_filters") or {})
            saved[name.strip()] = self.filter_bar.state.to_dict()
            self.context.set_setting("saved_filters", saved)

    def apply_saved_filter(self, name: str) -> None:
        """Show the grid through a saved filter."""
        values = (self.context.settings.get("saved_filters") or {}).get(name)
        if values is not None:
            self.filter_bar.set_state(FilterState.from_dict(values))
            self.show_view("grid")

    def _job_added(self, handle: JobHandle) -> None:
        if handle.visible:
            self.jobs_dock.show()
        self._update_jobs()

    # status ----------------------------------------------------------------------------------

    def show_message(self, text: str, msecs: int = 6000) -> None:
        """A transient line in the status bar."""
        self.statusBar().showMessage(text, msecs)

    def _update_counts(self, *_args: object) -> None:
        total = self.model.total_count()
        shown = self.model.rowCount()
        selected = len(self.context.selection.image_ids())
        picks = self.model.flag_count("pick")
        parts = [f"{shown:,} of {total:,} shown" if shown != total else f"{total:,} photographs"]
        if selected:
            parts.append(f"{selected:,} selected")
        if picks:
            parts.append(f"{picks:,} picks")
        self.count_label.setText("  ·  ".join(parts))

    def _update_jobs(self, *_args: object) -> None:
        running = [h for h in self.context.runner.active_jobs() if h.visible]
        self.jobs_label.setText(f"{len(running)} job{'s' if len(running) != 1 else ''} running" if running else "")

    def _update_model_label(self) -> None:
        judge = self.context.settings.get("judge")
        scorer = self.context.settings.get("scorer") or BUILTIN
        self.model_label.setText(f"Scorer: {scorer}  ·  Judge: {judge or 'none (optional)'}")

    def _setting_changed(self, key: str) -> None:
        if key == "theme":
            apply_theme(QApplication.instance(), self.context.settings.get("theme") or "dark")
        elif key in ("judge", "scorer"):
            self._update_model_label()
            if key == "scorer":
                self.model.reload()

    def _toggle_theme(self, light: bool) -> None:
        self.context.set_setting("theme", "light" if light else "dark")

    def show_shortcuts(self) -> None:
        """A short list of the keyboard shortcuts."""
        QMessageBox.information(
            self,
            "Keyboard shortcuts",
            "Grid and Loupe\n"
            "  Arrows: move        Enter: loupe / back      Esc: back to grid\n"
            "  0–5: stars          P: pick   X: reject   U: unflag\n"
            "  6 red, 7 yellow, 8 green, 9 blue (again to remove)\n"
            "  Ctrl+Z: undo        Ctrl+Shift+Z: redo\n\n"
            "Compare\n  ←: left is better   →: right is better   ↓: tie   Ctrl+Z: undo\n\n"
            "Views\n  Ctrl+1 Grid   Ctrl+2 Loupe   Ctrl+3 Compare   Ctrl+4 Set\n"
            "  Ctrl+O open folder   Ctrl+R score selection   Ctrl+T train taste   Ctrl+M models",
        )

    def switch_profile(self) -> None:
        """Ask for a profile file to open (a new name creates it), then switch to it."""
        path, _ = QFileDialog.getSaveFileName(
            self, "Open or create a profile", str(self.context.profile_path or ""),
            "Aesthete profile (*.aesthete.db *.db)", options=QFileDialog.Option.DontConfirmOverwrite,
        )  # fmt: skip
        if path:
            self.open_profile(Path(path))

    def open_profile(self, path: Path) -> None:
        """Ask the application to replace this window by one on the profile at `path`."""
        if path != self.context.profile_path:
            self.profile_requested.emit(path)

    def closeEvent(self, event: QCloseEvent) -> None:
        """Finish pending mark writes, cancel jobs, stop background threads."""
        self.marks.close()
        QTimer.singleShot(0, self.context.close)
        super().closeEvent(event)

