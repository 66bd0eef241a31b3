"""The grid's list model: every image of the profile with its marks and scores, filtered and sorted.

Rows are loaded from the profile in a worker (one read per reload), filtered and sorted in memory
(10,000 rows take a few milliseconds), and thumbnails are filled in as the loader delivers them.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
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

from aesthete_gui.engine.dimensions import DIMENSIONS

if TYPE_CHECKING:
    from aesthete_gui.qt.context import AppContext
    from aesthete_gui.store import Profile

ImageIdRole = Qt.ItemDataRole.UserRole + 1
RowRole = Qt.ItemDataRole.UserRole + 2

SORT_KEYS: tuple[str, ...] = ("capture_time", "name", *DIMENSIONS, "personal")
SORT_LABELS: dict[str, str] = {
    "capture_time": "Capture time",
    "name": "File name",
    **{d: d.capitalize() for d in DIMENSIONS},
    "personal": "My ranking",
}


@dataclass(frozen=True)
class ImageRow:
    """What the grid needs about one image (a snapshot; marks are replaced on change)."""

    image_id: int
    path: str
    capture_time: str | None = None
    folder_id: int | None = None
    burst_id: int | None = None
    status: str = "ok"
    error: str | None = None
    stars: int = 0
    flag: str | None = None
    label: str | None = None
    scores: Mapping[str, float] = field(default_factory=dict)
    personal: float | None = None
    name: str = ""  # the file name shown under the thumbnail (filled from path)
    sort_name: str = ""  # the name folded for sorting and searching

    def __post_init__(self) -> None:
        # computed once, in the worker that builds the rows: the grid sorts and paints by them
        if not self.name:
            object.__setattr__(self, "name", os.path.basename(self.path))
        if not self.sort_name:
            object.__setattr__(self, "sort_name", self.name.casefold())


@dataclass(frozen=True)
class FilterState:
    """What the grid shows: a conjunction of the filter bar's and the library panel's choices."""

    min_stars: int = 0
    flag: str | None = None  # None = any, "pick", "reject", "unflagged"
    label: str | None = None  # None = any, else a colour label
    folder_id: int | None = None
    burst_id: int | None = None
    score_dimension: str = "overall"
    score_min: float | None = None
    score_max: float | None = None
    collapse_bursts: bool = False
    text: str = ""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-friendly copy (saved filters)."""
        return dict(self.__dict__)

    @classmethod
    def from_dict(cls, values: Mapping[str, Any]) -> FilterState:
        """The filter saved by `to_dict` (unknown keys ignored)."""
        known = {k: v for k, v in values.items() if k in cls.__dataclass_fields__}
        return cls(**known)

    def accepts(self, row: ImageRow) -> bool:
        """True when the row passes every part of the filter."""
        if row.stars < self.min_stars:
            return False
        if self.flag == "unflagged":
            if row.flag is not None:
                return False
        elif self.flag is not None and row.flag != self.flag:
            return False
        if self.label is not None and row.label != self.label:
            return False
        if self.folder_id is not None and row.folder_id != self.folder_id:
            return False
        if self.burst_id is not None and row.burst_id != self.burst_id:
            return False
        if self.score_min is not None or self.score_max is not None:
            value = row.scores.get(self.score_dimension)
            if value is None:
                return False
            if self.score_min is not None and value < self.score_min:
                return False
            if self.score_max is not None and value > self.score_max:
                return False
        return not (self.text and self.text.casefold() not in row.sort_name)


def _sort_value(row: ImageRow, key: str) -> tuple:
    # Missing values sort last whatever the direction: the first element says "missing".
    if key == "name":
        return (0, row.sort_name)
    if key == "capture_time":
        return (row.capture_time is None, row.capture_time or "", row.sort_name)
    if key == "personal":
        return (row.personal is None, -(row.personal or 0.0))
    value = row.scores.get(key)
    return (value is None, -(value if value is not None else 0.0))


def best_of_burst(rows: Iterable[ImageRow]) -> ImageRow:
    """The frame shown for a collapsed burst: best overall score, then pick/stars, then first."""
    candidates = list(rows)

    def merit(row: ImageRow) -> tuple:
        overall = row.scores.get("overall")
        return (
            row.flag != "reject",
            overall if overall is not None else -math.inf,
            row.flag == "pick",
            row.stars,
        )

    return max(candidates, key=merit)


def arrange(
    rows: Iterable[ImageRow], state: FilterState, sort_key: str, descending: bool = False
) -> tuple[list[ImageRow], dict[int, int]]:
    """Filter and sort rows; collapse bursts to their best frame. Returns (rows, burst sizes)."""
    kept = [r for r in rows if state.accepts(r)]
    burst_sizes: dict[int, int] = {}
    if state.collapse_bursts and state.burst_id is None:
        by_burst: dict[int, list[ImageRow]] = {}
        singles: list[ImageRow] = []
        for row in kept:
            if row.burst_id is None:
                singles.append(row)
            else:
                by_burst.setdefault(row.burst_id, []).append(row)
        kept = singles + [best_of_burst(group) for group in by_burst.values()]
        burst_sizes = {bid: len(group) for bid, group in by_burst.items()}
    # Scores sort best-first by default; "descending" flips whatever the natural order is.
    kept.sort(key=lambda r: _sort_value(r, sort_key))
    if descending:
        present = [r for r in kept if not _sort_value(r, sort_key)[0]]
        missing = [r for r in kept if _sort_value(r, sort_key)[0]]
        kept = present[::-1] + missing
    return kept, burst_sizes


def load_rows(
    profile: Profile,
    scorer_id: str | None,
    personal_scorer_id: str | None = None,
    progress: Any = None,
    cancel: Any = None,
) -> list[ImageRow]:
    """Read every image with its marks and scores (runs in a worker thread)."""
    images = profile.images()
    marks = profile.marks()
    from aesthete_gui.qt.actions import personal_scorer_id as active_personal

    scores: Mapping[int, Mapping[str, float]] = profile.scores(scorer_id) if scorer_id else {}
    personal_scorer_id = personal_scorer_id or active_personal(profile)
    personal: Mapping[int, Mapping[str, float]] = (
        profile.scores(personal_scorer_id) if personal_scorer_id else {}
    )
    rows = []
    for image in images:
        mark = marks.get(image.id)
        personal_scores = personal.get(image.id) or {}
        rows.append(
            ImageRow(
                image_id=image.id,
                path=image.path,
                capture_time=image.capture_time,
                folder_id=image.folder_id,
                burst_id=image.burst_id,
                status=image.status,
                error=image.error,
                stars=mark.stars if mark else 0,
                flag=mark.flag if mark else None,
                label=mark.label if mark else None,
                scores=dict(scores.get(image.id) or {}),
                personal=personal_scores.get("overall"),
            )
        )
    return rows


@dataclass
class LoadedRows:
    """Rows read and arranged in a worker, ready to be swapped into the model in one step."""

    by_id: dict[int, ImageRow]
    visible: list[ImageRow]
    burst_sizes: dict[int, int]
    index_of: dict[int, int]
    filter: FilterState
    sort_key: str
    descending: bool


def load_and_arrange(
    profile: Profile,
    scorer_id: str | None,
    state: FilterState,
    sort_key: str,
    descending: bool,
    progress: Any = None,
    cancel: Any = None,
) -> LoadedRows:
    """load_rows + arrange, both off the UI thread (sorting 10,000 rows is not free)."""
    rows = load_rows(profile, scorer_id)
    visible, burst_sizes = arrange(rows, state, sort_key, descending)
    return LoadedRows(
        by_id={r.image_id: r for r in rows},
        visible=visible,
        burst_sizes=burst_sizes,
        index_of={r.image_id: i for i, r in enumerate(visible)},
        filter=state,
        sort_key=sort_key,
        descending=descending,
    )


class ImageListModel(QAbstractListModel):
    """All images of the profile as grid rows; `reload()` re-reads them off the UI thread."""

    loaded = Signal()  # rows were (re)loaded and arranged
    arranged = Signal()  # filter or sort changed

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
        self.refreshing = False
        """True while a reset only refreshes data (reload): views keep their scroll position."""
        self._changed_ids: set[int] = set()
        self._flush = QTimer(self, singleShot=True, interval=40)
        self._flush.timeout.connect(self._emit_changed)
        context.thumbnails.ready.connect(self._thumbnail_ready)
        context.signals.library_changed.connect(self.reload)
        context.signals.scores_changed.connect(self.reload)
        context.signals.adapters_changed.connect(self.reload)

    # Qt model API ------------------------------------------------------------------------------

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        """Visible rows (a list model has no children)."""
        return 0 if parent.isValid() else len(self._visible)

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        """Name (display), thumbnail (decoration, requested on first paint), id, the row itself."""
        if not index.isValid() or index.row() >= len(self._visible):
            return None
        row = self._visible[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return row.name
        if role == Qt.ItemDataRole.DecorationRole:
            return self._context.thumbnails.request(row.image_id)
        if role == ImageIdRole:
            return row.image_id
        if role == RowRole:
            return row
        if role == Qt.ItemDataRole.ToolTipRole:
            return row.path if row.status == "ok" else f"{row.path}\n{row.status}: {row.error}"
        return None

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

    def burst_size(self, burst_id: int | None) -> int:
        """How many frames a collapsed burst hides behind its best frame (0 when not collapsed)."""
        return self._burst_sizes.get(burst_id, 0) if burst_id is not None else 0

    def burst_members(self, burst_id: int) -> list[int]:
        """The ids of a burst's frames in capture order."""
        rows = [r for r in self._all.values() if r.burst_id == burst_id]
        rows.sort(key=lambda r: _sort_value(r, "capture_time"))
        return [r.image_id for r in rows]

    @property
    def filter_state(self) -> FilterState:
        """The current filter."""
        return self._filter

    @property
    def sort_key(self) -> str:
        """The current sort key (one of SORT_KEYS)."""
        return self._sort_key

    @property
    def descending(self) -> bool:
        """Whether the natural order is reversed."""
        return self._descending

    @property
    def loading(self) -> bool:
        """True while a reload runs."""
        return self._loading

    # changes -----------------------------------------------------------------------------------

    def set_filter(self, state: FilterState) -> None:
        """Show only rows passing `state`."""
        self._filter = state
        self._arrange()

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
        # rows arranged in the worker are used as they are unless filter or sort changed meanwhile
        if (loaded.filter, loaded.sort_key, loaded.descending) != (self._filter, self._sort_key, self._descending):
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
            self._all[image_id] = replace(row, stars=stars, flag=flag, label=label)
            position = self._index_of.get(image_id)
            if position is not None:
                self._visible[position] = self._all[image_id]
                self._changed_ids.add(image_id)
        self._flush.start()

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
            self._all.values(), self._filter, self._sort_key, self._descending
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
