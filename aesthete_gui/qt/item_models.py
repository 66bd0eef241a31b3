"""The grid's list model: every image of the profile with its marks and scores, filtered and sorted.

Rows (grid_rows.py) are read, filtered and sorted in a worker on every reload; a filter or sort the
user picks re-arranges them in memory; thumbnails are filled in as the loader delivers them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import (
    QAbstractListModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    QTimer,
    Signal,
)

from aesthete_gui.qt.grid_rows import (
    SORT_KEYS,
    SORT_LABELS,
    CheckState,
    FilterState,
    ImageRow,
    LoadedRows,
    arrange,
    best_of_burst,
    burst_cover,
    burst_others,
    cell_score,
    cover_reason,
    load_and_arrange,
    load_check_states,
    marked_by_user,
    score_source,
    scorer_title,
)

if TYPE_CHECKING:
    from aesthete_gui.qt.context import AppContext

__all__ = [
    "SORT_KEYS",
    "SORT_LABELS",
    "FilterState",
    "ImageListModel",
    "ImageRow",
    "RowRole",
    "ScoreTextRole",
    "arrange",
    "best_of_burst",
    "burst_cover",
]

RowRole = Qt.ItemDataRole.UserRole + 2
ScoreTextRole = Qt.ItemDataRole.UserRole + 3
"""The score a cell shows, as text ("" when none): grid_rows.cell_score, named by score_label()."""
WhyRole = Qt.ItemDataRole.UserRole + 4
"""Why the cell looks as it does: the checks that did not pass, why a burst shows this frame."""


class ImageListModel(QAbstractListModel):
    """All images of the profile as grid rows; `reload()` re-reads them off the UI thread."""

    loaded = Signal()  # rows were (re)loaded and arranged
    arranged = Signal()  # filter or sort changed
    sets_changed = Signal()  # checks measured later named a frame's set (bracket, panorama, focus stack)

    def __init__(self, context: AppContext, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._context = context
        self._all: dict[int, ImageRow] = {}
        self._visible: list[ImageRow] = []
        self._index_of: dict[int, int] = {}
        self._burst_sizes: dict[int, int] = {}
        self._filter = FilterState()
        self._sort_key = "capture_time"
        self._descending = False
        self._reload_pending = False
        self._loading = False
        self._personal_scorer: str | None = None  # the active adapter's ranking, from the last load
        self.refreshing = False
        """True while a reset only refreshes data (reload): views keep their scroll position."""
        self._changed_ids: set[int] = set()
        self._flush = QTimer(self, singleShot=True, interval=40)
        self._flush.timeout.connect(self._emit_changed)
        context.thumbnails.ready.connect(self._thumbnail_ready)
        context.signals.library_changed.connect(self.reload)
        context.signals.scores_changed.connect(self.reload)
        context.signals.adapters_changed.connect(self.reload)
        context.signals.checks_changed.connect(self._checks_measured)
        self._checks_waiting: set[int] = set()
        self._unflagged: set[int] = set()
        self._checks_loading = False
        self._rearrange = QTimer(self, singleShot=True, interval=1000)
        self._rearrange.timeout.connect(self._arrange_keeping_view)
        self._kept: set[int] = set()
        """The frames the user dealt with while this filter is on (keep_listed): listed until it changes."""

    # Qt model API ------------------------------------------------------------------------------

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        """Visible rows (a list model has no children)."""
        return 0 if parent.isValid() else len(self._visible)

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        """Name (display), thumbnail (decoration, requested on first paint), the row itself, tooltip."""
        if not index.isValid() or index.row() >= len(self._visible):
            return None
        row = self._visible[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return row.name
        if role == Qt.ItemDataRole.DecorationRole:
            return self._context.thumbnails.request(row.image_id)
        if role == RowRole:
            return row
        if role == ScoreTextRole:
            value = self.shown_score(row)
            return "" if value is None else f"{value:.2f}"
        if role == WhyRole:
            return self.why(row)
        if role == Qt.ItemDataRole.ToolTipRole:
            lines = [row.path if row.status == "ok" else f"{row.path}\n{row.status}: {row.error}"]
            if row.status == "ok" and not row.checked:
                lines.append("checking…")
            value = self.shown_score(row)
            if value is not None:
                lines.append(f"Score {value:.2f} · {self.score_label()}")
            why = self.why(row, with_others=False)  # on every hover: no walk over the library's rows
            return "\n".join(lines + ([why] if why else []))
        return None

    def why(self, row: ImageRow, with_others: bool = True) -> str:
        """The reasons behind what the grid shows for a row: its failed checks and, for a collapsed
        burst, why this frame stands for it and (`with_others`: W or a click, not a hover) what its
        other frames lack ("" when there is nothing to explain)."""
        lines = []
        if row.suggested_reject:
            lines.append("Suggested reject (a technical check failed; your marks decide):")
        lines += list(row.check_notes)
        if row.eyes_closed:
            lines.append("✖ eyes: a face has both eyes closed")
        size = self.burst_size(row.burst_id)
        if size and row.burst_id is not None:
            lines.append(cover_reason(row, size))
        if size and row.burst_id is not None and with_others:
            others = [r for i in self.burst_frames(row.burst_id) if i != row.image_id and (r := self._all.get(i)) is not None]
            if summary := burst_others(row, others):
                lines.append(summary)
        return "\n".join(lines)

    def score_label(self) -> str:
        """What the cells' score is: "overall · built-in", "My taste (name)", ..."""
        source, dimension = score_source(self._sort_key, self.personal_active())
        if source == "personal":
            return scorer_title(self._personal_scorer) if self._personal_scorer else "My taste"
        scorer = self._context.settings.get("scorer") or None
        return f"{dimension} · {scorer_title(scorer)}"

    def shown_score(self, row: ImageRow) -> float | None:
        """The one score the views show for a row (grid_rows.cell_score), named by score_label()."""
        return cell_score(row, self._sort_key, self.personal_active() or None)

    def personal_active(self) -> bool:
        """True when a taste adapter is active (its personal scores are the ones shown)."""
        return self._personal_scorer is not None

    # queries -----------------------------------------------------------------------------------

    def row_at(self, position: int) -> ImageRow:
        """The visible row at `position`."""
        return self._visible[position]

    def row_for(self, image_id: int) -> ImageRow | None:
        """The row of an image whether visible or not."""
        return self._all.get(image_id)

    def position_of(self, image_id: int) -> int | None:
        """Where an image is shown, or None when filtered out."""
        return self._index_of.get(image_id)

    def shown_positions(self, image_ids: Iterable[int]) -> list[int]:
        """Where each image is shown, or where its collapsed burst's cover stands in for it (images
        shown neither way are left out). One pass over the view, however many images are asked for."""
        covers: dict[int, int] | None = None
        positions = []
        for image_id in image_ids:
            position = self._index_of.get(image_id)
            row = self._all.get(image_id)
            if position is None and row is not None and row.burst_id is not None and self.burst_size(row.burst_id):
                if covers is None:
                    covers = {shown.burst_id: i for i, shown in reversed(list(enumerate(self._visible))) if shown.burst_id is not None}
                position = covers.get(row.burst_id)
            if position is not None:
                positions.append(position)
        return positions

    def visible_ids(self) -> list[int]:
        """The ids shown, in order."""
        return [r.image_id for r in self._visible]

    def all_rows(self) -> list[ImageRow]:
        """Every loaded row (unfiltered)."""
        return list(self._all.values())

    def total_count(self) -> int:
        """How many rows are loaded (unfiltered)."""
        return len(self._all)

    def flag_count(self, flag: str) -> int:
        """How many loaded rows carry `flag` ("pick" or "reject")."""
        return sum(1 for r in self._all.values() if r.flag == flag)

    def burst_frames(self, burst_id: int) -> list[int]:
        """The frames of a burst that pass the filter (those a collapsed burst stands for)."""
        return [r.image_id for r in self._all.values() if r.burst_id == burst_id and self._filter.accepts(r)]

    def burst_size(self, burst_id: int | None) -> int:
        """How many frames a collapsed burst hides behind its best frame (0 when not collapsed)."""
        return self._burst_sizes.get(burst_id, 0) if burst_id is not None else 0

    @property
    def loading(self) -> bool:
        """True while a reload runs."""
        return self._loading

    # changes -----------------------------------------------------------------------------------

    @property
    def filter_state(self) -> FilterState:
        """The filter the rows are shown through."""
        return self._filter

    def set_filter(self, state: FilterState) -> None:
        """Show only rows passing `state` (the frames kept listed under the last filter too are let go)."""
        self._filter = state
        self._kept.clear()
        self._arrange()

    def keep_listed(self, image_ids: Iterable[int]) -> None:
        """Keep these frames listed, where they are, until the filter changes, whatever their marks or
        checks become: the frames the user marks or dismisses (a rhythm of Right then X under
        "Suggested rejects" lost every rejected frame, and its place, when a mark from the command line
        or a dismiss re-applied the filter). Frames the filter does not list now are left alone."""
        if self._filter.accepts_everything():
            return  # nothing can drop out of this view
        for image_id in image_ids:
            row = self._all.get(image_id)
            if row is not None and (image_id in self._index_of or self._filter.accepts(row)):
                self._kept.add(image_id)

    def kept_count(self) -> int:
        """How many rows are listed only because keep_listed keeps them (they no longer pass the filter)."""
        if not self._kept:
            return 0
        return sum(1 for i in self._kept if i in self._index_of and not self._filter.accepts(self._all[i]))

    @property
    def sort_key(self) -> str:
        """The key the rows are sorted by (see SORT_KEYS)."""
        return self._sort_key

    def set_sort(self, key: str, descending: bool = False) -> None:
        """Sort by `key` (see SORT_KEYS)."""
        if key not in SORT_KEYS:
            raise ValueError(f"unknown sort key {key!r}; expected one of {', '.join(SORT_KEYS)}")
        self._sort_key, self._descending = key, descending
        self._arrange()

    def set_rows(self, rows: Iterable[ImageRow]) -> None:
        """Replace all rows (keeps filter and sort; the view keeps its scroll position)."""
        self._all = {r.image_id: r for r in rows}
        self.refreshing = True
        try:
            self._arrange()
        finally:
            self.refreshing = False
        self.loaded.emit()

    def _install(self, loaded: LoadedRows) -> None:
        self._personal_scorer = loaded.personal_scorer
        # rows arranged in the worker are used as they are unless filter, sort or kept rows changed meanwhile
        if (loaded.filter, loaded.sort_key, loaded.descending, loaded.keep) != (
            self._filter, self._sort_key, self._descending, self._kept
        ):
            self.set_rows(loaded.by_id.values())
            return
        self.refreshing = True
        try:
            self.beginResetModel()
            self._all, self._visible, self._burst_sizes = loaded.by_id, loaded.visible, loaded.burst_sizes
            self._index_of = loaded.index_of
            self.endResetModel()
        finally:
            self.refreshing = False
        self.arranged.emit()
        self.loaded.emit()

    def update_marks(self, marks: Mapping[int, tuple[int, str | None, str | None]]) -> None:
        """Apply new (stars, flag, label) to rows in place; rows no longer passing stay until re-arranged."""
        for image_id, (stars, flag, label) in marks.items():
            row = self._all.get(image_id)
            if row is None:
                continue
            # a flagged frame is no suggestion (as the profile's suggested_rejects() has it): every view
            # read the stale field, and Ctrl+Shift+X rejected a frame the user had just picked
            suggested = row.suggested_reject and flag is None
            if row.flag is not None and flag is None:
                self._unflagged.add(image_id)  # the checks' suggestion may stand again: read once written
            self._all[image_id] = replace(row, stars=stars, flag=flag, label=label, suggested_reject=suggested)
            position = self._index_of.get(image_id)
            if position is not None:
                self._visible[position] = self._all[image_id]
                self._changed_ids.add(image_id)
        self._flush.start()
        if self._hidden_frame_promoted(marks):
            self._rearrange.start()  # a pick on a hidden frame of a collapsed burst makes it the cover

    def marks_changed_elsewhere(self, marks: Mapping[int, tuple[int, str | None, str | None]]) -> None:
        """Marks another program made (the command line, a sidecar) are shown through the filter soon:
        a held10 trial's `aesthete mark --pick` left "picks only" showing 5 of the 7 picks the status
        bar and the export counted. The window's own marks leave the view in place until the next
        arrangement (a reject in "picks only" must not pull the frame from under the cursor)."""
        if marks and self._filter.reads_marks() and not self._rearrange.isActive():
            self._rearrange.start()

    def refresh_check_states(self, image_ids: list[int]) -> None:
        """Read these rows' check-derived fields again from the profile (a worker), e.g. after a
        suggestion was dismissed or restored."""
        self._checks_measured(image_ids)

    def marks_written(self, image_ids: list[int]) -> None:
        """Marks reached the profile: a frame whose flag was cleared (U, or undo of X) shows the checks'
        suggestion again where they still reject it (a trial's unflagged frame lost its "?" until reload)."""
        cleared = [i for i in image_ids if i in self._unflagged]
        if cleared:
            self._unflagged.difference_update(cleared)
            self._checks_measured(cleared)

    def _hidden_frame_promoted(self, marks: Mapping[int, tuple[int, str | None, str | None]]) -> bool:
        """Whether a mark made a frame a collapsed burst hides (a pick in the survey) the frame it now
        shows. Only a promotion moves the view: a reject of the frame shown leaves it in place until the
        next arrangement (an attack's second X, after the view had moved on by itself, rejected a frame
        never looked at)."""
        if not self._filter.collapse_bursts or self._filter.burst_id is not None:
            return False
        promoted = {row.image_id: row.burst_id for i in marks
                    if (row := self._all.get(i)) is not None and row.burst_id in self._burst_sizes
                    and i not in self._index_of and marked_by_user(row)}  # fmt: skip
        if not promoted:
            return False
        groups: dict[int | None, list[ImageRow]] = {b: [] for b in promoted.values()}
        for row in self._all.values():
            if row.burst_id in groups and self._filter.accepts(row):
                groups[row.burst_id].append(row)
        return any(group and burst_cover(group).image_id in promoted for group in groups.values())

    def update_checks(self, states: Mapping[int, CheckState]) -> None:
        """Apply check-derived fields measured after the rows were loaded (the import's second pass)."""
        sets_changed = False
        for image_id, (suggested, closed, rank, checked, notes, kind) in states.items():
            row = self._all.get(image_id)
            if row is None:
                continue
            sets_changed = sets_changed or row.set_kind != kind
            self._all[image_id] = replace(row, suggested_reject=suggested, eyes_closed=closed, culling_rank=rank,
                                          checked=checked, check_notes=notes, set_kind=kind)  # fmt: skip
            position = self._index_of.get(image_id)
            if position is not None:
                self._visible[position] = self._all[image_id]
                self._changed_ids.add(image_id)
        self._flush.start()
        if sets_changed:
            self.sets_changed.emit()
        f = self._filter
        shown_by_checks = f.collapse_bursts or f.flag == "suggested" or f.eyes_closed  # what is shown may change
        if shown_by_checks and not self._rearrange.isActive():
            self._rearrange.start()

    def _checks_measured(self, image_ids: list[int]) -> None:
        self._checks_waiting.update(i for i in image_ids if i in self._all)
        if self._checks_loading or not self._checks_waiting:
            return
        ids, self._checks_waiting = sorted(self._checks_waiting), set()
        self._checks_loading = True
        self._context.runner.submit("Reading checks", load_check_states, self._context.profile, ids,
                                    on_done=self._checks_loaded, on_error=lambda _exc: self._checks_loaded({}),
                                    visible=False)  # fmt: skip

    def _checks_loaded(self, states: Mapping[int, CheckState]) -> None:
        self._checks_loading = False
        self.update_checks(states)
        if self._checks_waiting:
            self._checks_measured([])

    def _arrange_keeping_view(self) -> None:
        self.refreshing = True
        try:
            self._arrange()
        finally:
            self.refreshing = False

    def reload(self) -> None:
        """Re-read rows from the profile in a worker; `loaded` fires when they are in."""
        if self._loading:
            self._reload_pending = True
            return
        self._loading = True
        settings = self._context.settings
        self._context.runner.submit(
            "Loading library",
            load_and_arrange,
            self._context.profile,
            settings.get("scorer") or None,
            self._filter,
            self._sort_key,
            self._descending,
            keep=frozenset(self._kept),
            on_done=self._loaded,
            on_error=lambda _exc: self._loaded(None),
            visible=False,
        )

    def _loaded(self, loaded: LoadedRows | None) -> None:
        self._loading = False
        if loaded is not None:
            self._install(loaded)
        if self._reload_pending:
            self._reload_pending = False
            self.reload()

    def _arrange(self) -> None:
        self.beginResetModel()
        self._visible, self._burst_sizes = arrange(
            self._all.values(), self._filter, self._sort_key, self._descending, self._kept
        )
        self._index_of = {r.image_id: i for i, r in enumerate(self._visible)}
        self.endResetModel()
        self.arranged.emit()

    def _thumbnail_ready(self, image_id: int) -> None:
        if image_id in self._index_of:
            self._changed_ids.add(image_id)
            if not self._flush.isActive():
                self._flush.start()

    def _emit_changed(self) -> None:
        positions = sorted(self._index_of[i] for i in self._changed_ids if i in self._index_of)
        self._changed_ids.clear()
        if not positions:
            return
        # one signal per contiguous run keeps repaints to what actually changed
        start = previous = positions[0]
        for position in [*positions[1:], None]:
            if position is not None and position == previous + 1:
                previous = position
                continue
            self.dataChanged.emit(self.index(start), self.index(previous))
            if position is not None:
                start = previous = position
