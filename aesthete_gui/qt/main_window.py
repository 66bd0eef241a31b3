"""The main window: library panel, Grid / Loupe / Compare / Set views, inspector, jobs, menus, status."""

from __future__ import annotations

import base64
import logging
from dataclasses import replace
from pathlib import Path
from typing import Any

from PySide6.QtCore import QByteArray, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
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
from aesthete_gui.qt import actions
from aesthete_gui.qt.context import AppContext
from aesthete_gui.qt.culling_actions import BURST_MARKS_SETTING, expand_to_bursts, selection_note
from aesthete_gui.qt.culling_menu import CullingMenuMixin
from aesthete_gui.qt.file_dialogs import choose_profile_file
from aesthete_gui.qt.ingest_action import ingest_from_card
from aesthete_gui.qt.item_models import SORT_KEYS, FilterState, ImageListModel
from aesthete_gui.qt.key_router import CullingKeyRouter
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
from aesthete_gui.qt.widgets.survey_view import MAX_FRAMES, MIN_FRAMES, SurveyView, frames_around
from aesthete_gui.qt.widgets.welcome import WelcomePage
from aesthete_gui.qt.window_jobs import JobMenuMixin
from aesthete_gui.qt.window_review import ReviewMixin
from aesthete_gui.settings import PAIRS_AS_ONE_KEY, UserState, as_flag

log = logging.getLogger(__name__)

VIEWS: tuple[str, ...] = ("grid", "loupe", "compare", "set", "survey")
VIEW_TITLES: dict[str, str] = {
    "grid": "Grid", "loupe": "Loupe", "compare": "Compare", "set": "Set", "survey": "Survey",
}  # fmt: skip


class MainWindow(CullingMenuMixin, JobMenuMixin, ReviewMixin, QMainWindow):
    """Aesthete's one window; every widget gets the shared AppContext."""

    view_changed = Signal(str)
    profile_requested = Signal(object)  # Path: the launcher opens it in a new window

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.setObjectName("mainWindow")
        self.setWindowTitle(self._title())
        self.resize(self.default_size())
        self.setMinimumSize(QSize(960, 600))
        self.setAcceptDrops(True)  # drop a folder on the window to import it
        self.model = ImageListModel(context, self)
        self.marks = MarkController(context, current=self._marks_shown, parent=self)
        self.marks.failed.connect(self.show_message)
        self.marks.notice.connect(self.show_message)
        self.sidecar_watch = SidecarWatcher(context, self)  # sidecar edits made elsewhere, on focus

        self.filter_bar = FilterBar(self)
        self.grid = GridView(context, self.model, self.marks, self)
        self.loupe = LoupeView(context, self.model, self.marks, self)
        self.compare = CompareView(context, self)
        self.set_view = SetView(context, self)
        self.survey = SurveyView(context, self.model, self.marks, self, self.loupe.full_resolution)
        self.welcome = WelcomePage(context.runner, self)

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
            "survey": self.survey,
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
        self.inspector = Inspector(context, self, shown_score=self._shown_score)
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
        self._add_import_report_button()

        self._build_menus()
        self.filter_bar.filter_changed.connect(self.model.set_filter)
        self.filter_bar.sort_changed.connect(self.model.set_sort)
        self.filter_bar.sort_changed.connect(self._score_source_changed)
        self.filter_bar.save_requested.connect(self.save_filter)
        self.filter_bar.control_used.connect(self.focus_current_view)
        self.key_router = CullingKeyRouter(self, self.key_target)
        self.library.scope_selected.connect(self._scope_selected)
        self.library.unreadable_selected.connect(self._unreadable_selected)
        self.library.saved_filter_selected.connect(self.apply_saved_filter)
        self.library.profile_switch_requested.connect(self.switch_profile)
        self.library.profile_selected.connect(self.open_profile)
        self.grid.open_requested.connect(self.open_in_loupe)
        self.loupe.back_requested.connect(lambda: self.show_view("grid"))
        self.grid.survey_requested.connect(lambda: self.show_view("survey"))
        self.grid.mark_note.connect(self._note_next_mark)
        self.compare.inspected.connect(self._compare_inspected)
        self.survey.back_requested.connect(lambda: self.show_view("grid"))
        self.survey.open_requested.connect(self.open_in_loupe)
        self.welcome.open_folder_requested.connect(self.choose_and_import)
        self.welcome.dismissed.connect(self._welcome_dismissed)
        self.welcome.model_manager_requested.connect(self.open_model_manager)
        self.model.loaded.connect(self._library_loaded)
        self.model.arranged.connect(self._update_counts)
        self.marks.applied.connect(self._marks_applied)
        context.selection.changed.connect(self._update_counts)
        context.signals.status_message.connect(self.show_message)
        context.signals.settings_changed.connect(self._setting_changed)
        context.runner.job_added.connect(self._job_added)
        context.runner.job_ended.connect(self._update_jobs)
        self._current_view = "grid"
        self._picks_shown = 0  # the pick count last announced, to say how a mark changed it
        self._mark_note = ""  # said with the next mark's pick count (frames reached, undo)
        self._last_partial_reload = 0.0
        self.stack.setCurrentWidget(self._pages["grid"])
        self._update_model_label()
        self._update_jobs()
        self.user_state = UserState()
        self.remembers_session = True
        """False for a --screenshot run: its view and window size are not the user's to keep."""
        self._view_to_restore = self._restore_session()
        self.filter_bar.filter_changed.connect(self._remember_session)
        self.filter_bar.sort_changed.connect(self._remember_session)
        self.view_changed.connect(self._remember_session)
        self.model.reload()
        self.restore_import_report()
        QTimer.singleShot(0, self.remeasure_outdated)

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
        self._action(edit_menu, "&Invert selection", self.grid.invert_selection, "Ctrl+Shift+I")
        self._add_culling_actions(file_menu, edit_menu)
        self.xmp_action = self._action(edit_menu, "Write marks to &XMP sidecars", self._toggle_xmp)
        self.xmp_action.setCheckable(True)
        self.xmp_action.setChecked(as_flag(self.context.settings.get("xmp_enabled"), True))
        self.pairs_action = self._action(edit_menu, "Treat RAW+JPEG &pairs as one", self._toggle_pairs)
        self.pairs_action.setCheckable(True)
        self.pairs_action.setChecked(as_flag(self.context.settings.get(PAIRS_AS_ONE_KEY), False))
        self.pairs_action.setStatusTip("A mark on the RAW or the JPEG of a pair applies to both (and to the shared IMG.xmp)")

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
        self._add_quick_filters(view_menu)
        view_menu.addSeparator()
        self.reset_state_action = self._action(view_menu, "&Reset layout, sort and filters", self.reset_remembered_state)

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
        self._view_to_restore = None  # a view asked for now wins over the one remembered
        if self._current_view == "survey" and key == "grid":
            self._select_shown_tile()
        if self._current_view in ("compare", "survey") and key != self._current_view:
            self.inspector.show_image(self.context.selection.current())  # back to the grid's frame
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
            self.inspector.show_image(self.compare.inspected_id())  # the pair, not the grid's frame
        elif key == "set":
            chosen = self.context.selection.image_ids()
            selected, note = chosen, ""
            if len(selected) < MIN_FRAMES:  # one frame of a burst: its burst, eight at most, that frame among them
                burst, current = self.survey_frames()
                selected = frames_around(burst, current, MAX_FRAMES) or chosen
                if len(burst) > len(selected):
                    note = f" ({len(selected)} of this burst's {len(burst)} frames: those ending at the current one)"
            # a selection that makes no set (one frame in no burst) puts the last set away too: a
            # choice recorded now would be about frames no longer selected (third attack)
            if selected and sorted(selected) != sorted(self.set_view.image_ids()):
                # the set is what the user has selected now; more than eight is refused with the count
                # (the first eight were taken without a word, the current frame left out)
                self.set_view.set_images(selected, note)
            self.set_view.setFocus()
        elif key == "survey":
            frames, current = self.survey_frames()
            self.survey.set_frames(frames, current, selected=len(self.context.selection.image_ids()) >= MIN_FRAMES)
            self.survey.setFocus()
        self._update_counts()  # what a key marks depends on the view
        self.view_changed.emit(key)

    def _select_shown_tile(self) -> None:
        """Back from the survey on a frame a collapsed burst hides: its burst's tile becomes the current
        frame, the one the grid's keys mark (a trial saw the inspector describe the hidden frame while
        3 put three stars on the cover)."""
        current = self.context.selection.current()
        row = self.model.row_for(current) if current is not None else None
        if row is None or row.burst_id is None or self.model.position_of(row.image_id) is not None:
            return
        shown = next((i for i in self.model.burst_frames(row.burst_id) if self.model.position_of(i) is not None), None)
        if shown is not None and self.grid.select_image(shown):
            self.context.selection.set_image_ids([shown])  # the tile may have stayed selected in the grid

    def survey_frames(self) -> tuple[list[int], int | None]:
        """What the survey shows: the selection (2–8 frames), else the current frame's burst."""
        selected = self.context.selection.image_ids()
        current = self.context.selection.current()
        if len(selected) >= MIN_FRAMES:
            # every selected frame in the grid's order: the survey shows eight of them, those around
            # the current one, and says how many it left out
            order = {image_id: n for n, image_id in enumerate(self.model.visible_ids())}
            return sorted(selected, key=lambda i: order.get(i, len(order))), current
        row = self.model.row_for(current) if current is not None else None
        if row is not None and row.burst_id is not None:
            # the burst's frames the grid's filter lets through (hidden by collapsing is not hidden):
            # a rejected frame the user hid must not come back, outlined, where a key would mark it
            state = self.model.filter_state
            burst = sorted(
                (r for r in self.model.all_rows() if r.burst_id == row.burst_id and (r.image_id == current or state.accepts(r))),
                key=lambda r: (r.capture_time or "", r.sort_name),
            )
            return [r.image_id for r in burst], current
        return [], None

    def key_target(self) -> QWidget | None:
        """The widget that takes the culling keys in the view shown (None on the welcome page)."""
        targets: dict[str, QWidget] = {
            "grid": self.grid, "loupe": self.loupe, "compare": self.compare, "set": self.set_view,
            "survey": self.survey,
        }  # fmt: skip
        return targets.get(self._current_view)

    def focus_current_view(self) -> None:
        """Give the keyboard back to the current view (after a combo box or button was used)."""
        target = self.key_target()
        if target is not None:
            target.setFocus(Qt.FocusReason.OtherFocusReason)

    def open_in_loupe(self, image_id: int) -> None:
        """Show one image large."""
        self.context.selection.set_image_ids([image_id])
        self.show_view("loupe")
        self.loupe.show_image(image_id)

    def _library_loaded(self) -> None:
        if self.filter_bar.state.unreadable and not any(r.status != "ok" for r in self.model.all_rows()):
            self.filter_bar.set_scope()  # the last unreadable file was read again: its list is gone, so is the scope
        self._update_counts()
        self._picks_shown = self.model.flag_count("pick")
        self.filter_bar.set_capture_times(r.capture_time for r in self.model.all_rows())
        self._score_source_changed()
        empty = self.model.total_count() == 0
        view, self._view_to_restore = self._view_to_restore, None
        if empty and not self.context.settings.get("welcome_done"):
            self.show_view("welcome")
        elif view and not empty:
            self.show_view(view)
        elif self._current_view == "welcome" and not empty:
            self.show_view("grid")

    # remembered state ------------------------------------------------------------------------

    def _restore_session(self) -> str | None:
        """Put back this profile's sort, filters and view, and the user's window layout; the view to
        show once the library has loaded."""
        session = self.context.settings.get("session") or {}
        if isinstance(session.get("filter"), dict):
            self.filter_bar.set_state(FilterState.from_dict(session["filter"]))
        if isinstance(session.get("sort"), list) and len(session["sort"]) == 2:
            self.filter_bar.set_sort(str(session["sort"][0]), bool(session["sort"][1]))
        for key, restore in (("geometry", self.restoreGeometry), ("docks", self.restoreState)):
            encoded = self.user_state.get(key)
            if isinstance(encoded, str):
                restore(QByteArray(base64.b64decode(encoded)))
        view = session.get("view")
        return view if view in VIEWS else None

    def _remember_profile(self) -> None:
        """The profile to open next time, as an absolute path (a relative one named another file
        when the app was started from another folder); never from a --screenshot run."""
        if self.remembers_session and self.context.profile_path is not None:
            self.user_state.update(last_profile=str(self.context.profile_path.absolute()))

    def _remember_session(self, *_args: object) -> None:
        if self._current_view not in VIEWS or not self.remembers_session:
            return
        self._remember_profile()
        # the library panel's folder / burst is navigation, not a filter: it is not kept
        kept = replace(self.filter_bar.state, folder_id=None, burst_id=None, unreadable=False)
        self.context.settings["session"] = {
            "filter": kept.to_dict(), "sort": list(self.filter_bar.sort_order), "view": self._current_view,
        }  # fmt: skip

    def _remember_layout(self) -> None:
        self.user_state.update(
            geometry=base64.b64encode(self.saveGeometry().data()).decode("ascii"),
            docks=base64.b64encode(self.saveState().data()).decode("ascii"),
        )

    def reset_remembered_state(self) -> None:
        """Forget the remembered sort, filters, view and window layout, and show the defaults."""
        self.context.settings.pop("session", None)
        self.user_state.reset()
        self._remember_profile()
        self.filter_bar.set_state(FilterState())
        self.filter_bar.set_sort(SORT_KEYS[0], False)
        for dock in (self.library_dock, self.inspector_dock, self.jobs_dock):
            dock.setFloating(False)
            dock.show()
        self.resizeDocks([self.library_dock, self.inspector_dock], [220, 320], Qt.Orientation.Horizontal)
        self.resizeDocks([self.inspector_dock, self.jobs_dock], [560, 160], Qt.Orientation.Vertical)
        self.resize(self.default_size())
        self.show_view("grid")
        self.context.settings.pop("session", None)
        self.show_message("Remembered layout, sort and filters reset.")

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
            self._mark_note = f"Undo: {stack.undoText()}"
            stack.undo()
            self._mark_note = ""
        else:
            self.show_message("Nothing to undo.")

    def redo(self) -> None:
        """Redo the last undone mark or choice."""
        stack = self.context.undo_stack
        if stack.canRedo():
            self.show_message(f"Redo: {stack.redoText()}")
            self._mark_note = f"Redo: {stack.redoText()}"
            stack.redo()
            self._mark_note = ""

    def _toggle_xmp(self, checked: bool) -> None:
        self.context.set_setting("xmp_enabled", bool(checked))

    def _toggle_pairs(self, checked: bool) -> None:
        self.context.set_setting(PAIRS_AS_ONE_KEY, bool(checked))

    # filters ---------------------------------------------------------------------------------

    def _scope_selected(self, folder_id: int | None, burst_id: int | None) -> None:
        self.filter_bar.set_scope(folder_id, burst_id)
        if self._current_view not in ("grid", "loupe"):
            self.show_view("grid")

    def _unreadable_selected(self) -> None:
        self.filter_bar.set_scope(unreadable=True)
        self.show_view("grid")  # each tile says why its file could not be read

    def save_filter(self) -> None:
        """Ask for a name and keep the current filter under it (shown in the library panel)."""
        name, ok = QInputDialog.getText(self, "Save filter", "Name of this filter:")
        if ok and name.strip():
            saved = dict(self.context.settings.get("saved_filters") or {})
            saved[name.strip()] = self.filter_to_save()
            self.context.set_setting("saved_filters", saved)

    def filter_to_save(self) -> dict[str, Any]:
        """The filter shown, as a saved filter keeps it: the unreadable files are a place to look, not
        a filter (a saved one showed nothing once none was left)."""
        return replace(self.filter_bar.state, unreadable=False).to_dict()

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
        kept = self.model.kept_count()
        if kept:  # frames the user dealt with stay in view: say that they no longer pass
            parts[0] += f" ({kept:,} no longer pass{'es' if kept == 1 else ''} the filter: kept until you change it)"
        if selected:
            parts.append(self._selection_note(selected))
        if picks:
            parts.append(f"{picks:,} pick{'s' if picks != 1 else ''}")
        self.count_label.setText("  ·  ".join(parts))

    def _selection_note(self, selected: int) -> str:
        """"N selected", and what a culling key marks in the view shown when that differs."""
        if self._current_view == "survey" and self.survey.active_id is not None:
            return selection_note(selected, 1, target="the outlined frame")
        if self._current_view == "loupe":
            return selection_note(selected, 1, target="the frame shown")
        if self._current_view != "grid":
            return f"{selected:,} selected"
        all_frames = bool(self.context.settings.get(BURST_MARKS_SETTING, False))
        keyed = self.grid.selected_ids()
        rows = [self.model.row_for(i) for i in keyed]
        covers = sum(1 for row in rows if row is not None and self.model.burst_size(row.burst_id) > 0)
        return selection_note(selected, len(expand_to_bursts(self.model, keyed, all_frames)), covers, all_frames)

    def _update_jobs(self, *_args: object) -> None:
        running = [h for h in self.context.runner.active_jobs() if h.visible]
        self.jobs_label.setText(f"{len(running)} job{'s' if len(running) != 1 else ''} running" if running else "")

    def _update_model_label(self) -> None:
        """The status bar names the score every view shows (and its scorer) and the judge."""
        judge = actions.judge_label(actions.configured_judge(self.context.settings))
        self.model_label.setText(f"Scores: {self.model.score_label()}  ·  Judge: {judge}")
        self.model_label.setToolTip(
            f"The score the grid cells and the inspector show, and the scorer that gave it; "
            f"Scoring ▸ Score with chooses the scorer (now {self.context.settings.get('scorer') or BUILTIN})"
        )

    def _setting_changed(self, key: str) -> None:
        if key == BURST_MARKS_SETTING:
            self._update_counts()
        if key == "theme":
            app = QApplication.instance()
            if isinstance(app, QApplication):
                apply_theme(app, self.context.settings.get("theme") or "dark")
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
            "  W (or a click on a badge): why it is flagged, why a burst shows this frame\n"
            "  Ctrl+Z: undo        Ctrl+Shift+Z: redo       Ctrl+Shift+I: invert selection\n"
            "  Alt+P picks only   Alt+X hide rejects   Alt+U unrated   Alt+R suggested rejects   Alt+0 all\n"
            "  Alt+B collapse bursts   Ctrl+Shift+X accept suggested rejects shown   Ctrl+Shift+U dismiss one\n\n"
            "Compare\n  ←: left is better   →: right is better   ↓: tie   Ctrl+Z: undo\n\n"
            "Loupe\n  Z or a click: fit / 100 %   Shift+Z: 200 %   E: focus peaking   W: why\n\n"
            "Survey (N in the grid)\n  ←/→ or a click: choose the frame   culling keys mark it   Z: 100 %\n\n"
            "Views\n  Ctrl+1 Grid   Ctrl+2 Loupe   Ctrl+3 Compare   Ctrl+4 Set   Ctrl+5 Survey\n"
            "  Ctrl+O open folder   Ctrl+R score selection   Ctrl+T train taste   Ctrl+M models",
        )

    def switch_profile(self) -> None:
        """Ask for a profile file to open (a new name creates it), then switch to it."""
        path = choose_profile_file(self, "Open or create a profile", self.context.profile_path)
        if path:
            self.open_profile(Path(path))

    def open_profile(self, path: Path) -> None:
        """Ask the application to replace this window by one on the profile at `path`."""
        if path != self.context.profile_path:
            self.profile_requested.emit(path)

    def closeEvent(self, event: QCloseEvent) -> None:
        """Finish pending mark writes, cancel jobs, stop background threads."""
        self.marks.close()
        if self.remembers_session:
            self._remember_layout()
            self._remember_profile()
        self.key_router.detach()
        self.loupe.full_resolution.stop()
        QTimer.singleShot(0, self.context.close)
        super().closeEvent(event)

