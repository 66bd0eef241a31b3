"""The grid's rows without Qt: what one image shows, the filter, sorting, burst collapsing, loading.

Pure Python so it runs in workers and tests alike; `item_models.ImageListModel` is its Qt view.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from aesthete_gui.engine.dimensions import DIMENSIONS
from aesthete_gui.services.burst_choice import burst_merit

if TYPE_CHECKING:
    from aesthete_gui.store import Profile

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
    suggested_reject: bool = False  # a technical check rejects it and the user set no flag
    eyes_closed: bool = False  # a face was found with both eyes closed
    culling_rank: tuple[float, ...] = ()  # imaging.bursts.stored_culling_rank: larger is better
    checked: bool = True  # False while the import's second pass has not measured its checks yet
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
    flag: str | None = None  # None = any, "pick", "reject", "unflagged", "suggested"
    label: str | None = None  # None = any, else a colour label
    folder_id: int | None = None
    burst_id: int | None = None
    score_dimension: str = "overall"
    score_min: float | None = None
    score_max: float | None = None
    collapse_bursts: bool = False
    eyes_closed: bool = False  # only frames with a face whose eyes are closed
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
        elif self.flag == "suggested":
            if not row.suggested_reject:
                return False
        elif self.flag is not None and row.flag != self.flag:
            return False
        if self.label is not None and row.label != self.label:
            return False
        if self.eyes_closed and not row.eyes_closed:
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


def sort_value(row: ImageRow, key: str) -> tuple:
    """The sort key of a row for `key`; rows missing the value sort last."""
    # Missing values sort last whatever the direction: the first element says "missing".
    if key == "name":
        return (0, row.sort_name)
    if key == "capture_time":
        return (row.capture_time is None, row.capture_time or "", row.sort_name)
    if key == "personal":
        return (row.personal is None, -(row.personal or 0.0))
    value = row.scores.get(key)
    return (value is None, -(value if value is not None else 0.0))


def cell_score(row: ImageRow, sort_key: str) -> float | None:
    """The score a grid cell shows: the one the sort uses ("My ranking": the personal score; a
    dimension: that dimension's score), otherwise the overall score."""
    if sort_key == "personal":
        return row.personal
    if sort_key in DIMENSIONS:
        return row.scores.get(sort_key)
    return row.scores.get("overall")


def best_of_burst(rows: Iterable[ImageRow]) -> ImageRow:
    """The frame shown for a collapsed burst: services.burst_choice.burst_merit (not rejected, then
    eyes not closed, subject in focus, no clipping, no reject verdict, then best overall score,
    pick/stars), the first on a tie; `aesthete bursts` names the same frame."""
    return max(rows, key=lambda row: burst_merit(row.flag, row.culling_rank, row.scores.get("overall"), row.stars))


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
    kept.sort(key=lambda r: sort_value(r, sort_key))
    if descending:
        present = [r for r in kept if not sort_value(r, sort_key)[0]]
        missing = [r for r in kept if sort_value(r, sort_key)[0]]
        kept = present[::-1] + missing
    return kept, burst_sizes


def load_rows(
    profile: Profile,
    scorer_id: str | None,
    progress: Any = None,
    cancel: Any = None,
) -> list[ImageRow]:
    """Read every image with its marks and scores (runs in a worker thread)."""
    images = profile.images()
    marks = profile.marks()
    from aesthete_gui.services.scoring import personal_scorer_id as active_personal

    scores: Mapping[int, Mapping[str, float]] = profile.scores(scorer_id) if scorer_id else {}
    from aesthete_gui.imaging.bursts import stored_culling_rank

    personal_scorer_id = active_personal(profile)
    from aesthete_gui.services.library_checks import checks_version

    current = checks_version()  # older verdicts count as not checked until a rescan measures again
    checks = profile.all_checks(current)
    suggested = profile.suggested_rejects(current)
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
                suggested_reject=image.id in suggested,
                eyes_closed=image.id in checks and any(f.get("eyes") == "closed" for f in checks[image.id][1]),
                culling_rank=stored_culling_rank(*checks[image.id]) if image.id in checks else (),
                checked=image.status != "ok" or image.id in checks,
            )
        )
    return rows


CheckState = tuple[bool, bool, tuple[float, ...], bool]
"""What the checks decide about a row: (suggested_reject, eyes_closed, culling_rank, checked)."""


def load_check_states(profile: Profile, image_ids: Iterable[int], progress: Any = None, cancel: Any = None) -> dict[int, CheckState]:
    """The check-derived fields of some rows, read again after their checks were measured (a worker)."""
    from aesthete_gui.imaging.bursts import stored_culling_rank
    from aesthete_gui.services.library_checks import checks_version

    current = checks_version()
    suggested = profile.suggested_rejects(current)
    states: dict[int, CheckState] = {}
    for image_id in image_ids:
        stored = profile.stored_checks(image_id, current)
        if stored is None:
            states[image_id] = (False, False, (), False)
            continue
        closed = any(f.get("eyes") == "closed" for f in stored[1])
        states[image_id] = (image_id in suggested, closed, stored_culling_rank(*stored), True)
    return states


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
