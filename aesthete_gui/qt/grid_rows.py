"""The grid's rows without Qt: what one image shows, the filter, sorting, burst collapsing, loading.

Pure Python so it runs in workers and tests alike; `item_models.ImageListModel` is its Qt view.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from aesthete_gui.engine.dimensions import DIMENSIONS
from aesthete_gui.engine.scorers import ScorerId, ScorerIdError, ScorerKind, is_builtin
from aesthete_gui.imaging.sequences import KIND_NAMES
from aesthete_gui.services.burst_choice import burst_merit, cover_merit

# imported here, not in load_and_arrange: an import in a worker thread while the UI thread shows a
# window deadlocked twice in PySide6's import hook (a fresh clone's test run hung in show())
from aesthete_gui.services.scoring import personal_scorer_id

if TYPE_CHECKING:
    from aesthete_gui.store import Profile

SORT_KEYS: tuple[str, ...] = ("capture_time", "name", *DIMENSIONS, "personal")
SORT_LABELS: dict[str, str] = {
    "capture_time": "Capture time",
    "name": "File name",
    **{d: d.capitalize() for d in DIMENSIONS},
    "personal": "My ranking",
}


@dataclass(slots=True)
class ImageRow:
    """What the grid needs about one image: a snapshot, read-only by convention (changes make a new
    row with dataclasses.replace). Not frozen: a frozen dataclass sets each field through
    object.__setattr__, which made building 50,000 rows three times slower."""

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
    culling_rank: tuple[float, ...] = ()  # imaging.best_frame.stored_culling_rank: larger is better
    checked: bool = True  # False while the import's second pass has not measured its checks yet
    check_notes: tuple[str, ...] = ()  # "✖ focus: …" / "⚠ noise: …": the checks that did not pass, why
    set_kind: str = ""  # "exposure bracket", "panorama", "focus stack" (services/verdicts.py): never culled; "" for none
    name: str = ""  # the file name shown under the thumbnail (filled from path)
    sort_name: str = ""  # the name folded for sorting and searching

    def __post_init__(self) -> None:
        # computed once, in the worker that builds the rows: the grid sorts and paints by them
        if not self.name:
            self.name = self.path.rpartition(os.sep)[2]
        if not self.sort_name:
            self.sort_name = self.name.casefold()


@dataclass(frozen=True)
class FilterState:
    """What the grid shows: a conjunction of the filter bar's and the library panel's choices."""

    min_stars: int = 0
    flag: str | None = None  # None = any, "pick", "reject", "unflagged", "suggested", "not_reject"
    label: str | None = None  # None = any, else a colour label
    unrated: bool = False  # only frames without stars
    captured_from: str | None = None  # ISO capture time, inclusive ("2026-06-13T15:00")
    captured_to: str | None = None  # ISO capture time, exclusive
    folder_id: int | None = None
    burst_id: int | None = None
    unreadable: bool = False  # only files that could not be read or are missing (library panel)
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

    def accepts_everything(self) -> bool:
        """True when no part of the filter can turn a row away."""
        return (self.min_stars <= 0 and self.flag is None and self.label is None and self.folder_id is None
                and self.burst_id is None and not self.unreadable and self.score_min is None and self.score_max is None
                and not self.eyes_closed and not self.text and not self.unrated
                and self.captured_from is None and self.captured_to is None)  # fmt: skip

    def reads_marks(self) -> bool:
        """True when a change of stars, flag or label can let a row in or turn it away (or move the
        frame a collapsed burst shows)."""
        return self.min_stars > 0 or self.unrated or self.flag is not None or self.label is not None or self.collapse_bursts

    def accepts(self, row: ImageRow) -> bool:
        """True when the row passes every part of the filter."""
        if row.stars < self.min_stars or (self.unrated and row.stars):
            return False
        if self.flag == "unflagged":
            if row.flag is not None:
                return False
        elif self.flag == "suggested":
            if not row.suggested_reject:
                return False
        elif self.flag == "not_reject":
            if row.flag == "reject":
                return False
        elif self.flag is not None and row.flag != self.flag:
            return False
        if self.captured_from is not None or self.captured_to is not None:
            when = row.capture_time
            if when is None or (self.captured_from is not None and when < self.captured_from):
                return False
            if self.captured_to is not None and when >= self.captured_to:
                return False
        if self.label is not None and row.label != self.label:
            return False
        if self.eyes_closed and not row.eyes_closed:
            return False
        if self.folder_id is not None and row.folder_id != self.folder_id:
            return False
        if self.burst_id is not None and row.burst_id != self.burst_id:
            return False
        if self.unreadable and row.status == "ok":
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


def cell_score(row: ImageRow, sort_key: str, personal_active: bool | None = None) -> float | None:
    """The one score a view shows for a row (the grid cell and the inspector alike): the sorted
    dimension's score when sorting by a dimension, else the personal score when a taste adapter is
    active (`personal_active`; by default: the row has a personal score) or the sort is "My
    ranking", else the scorer's overall score (see score_source)."""
    active = row.personal is not None if personal_active is None else personal_active
    source, dimension = score_source(sort_key, active)
    if source == "personal":
        return row.personal
    return row.scores.get(dimension)


def score_source(sort_key: str, personal_active: bool) -> tuple[str, str]:
    """Which score the views show: ("personal", "overall") or ("scorer", dimension)."""
    if sort_key in DIMENSIONS:
        return "scorer", sort_key
    if sort_key == "personal" or personal_active:
        return "personal", "overall"
    return "scorer", "overall"


def scorer_title(scorer_id: str | None) -> str:
    """A scorer as the window names it: "built-in", "My taste (name)", or its id."""
    if is_builtin(scorer_id):
        return "built-in"
    try:
        parsed = ScorerId.parse(str(scorer_id))
    except ScorerIdError:
        return str(scorer_id)
    return f"My taste ({parsed.name})" if parsed.kind is ScorerKind.TASTE else str(scorer_id)


def best_of_burst(rows: Iterable[ImageRow]) -> ImageRow:
    """The frame shown for a collapsed burst: services.burst_choice.burst_merit (not rejected, then
    eyes not closed, subject in focus, no clipping, no reject verdict, then best overall score,
    pick/stars), the first on a tie; `aesthete bursts` names the same frame."""
    return max(rows, key=lambda row: burst_merit(row.flag, row.culling_rank, row.scores.get("overall"), row.stars))


def judged_by_user(row: ImageRow) -> bool:
    """True when the user judged the frame in any way: a pick or a reject, stars or a colour label."""
    return row.flag is not None or row.stars > 0 or row.label is not None


def marked_by_user(row: ImageRow) -> bool:
    """True when the user judged the frame: a pick, stars or a colour label (a reject is no choice)."""
    return row.flag != "reject" and judged_by_user(row)


def burst_cover(rows: Iterable[ImageRow]) -> ImageRow:
    """The frame a collapsed burst shows: the one the user marked (a pick first, then the most stars,
    then a colour label; ties go to the technically better frame), else best_of_burst."""
    return max(rows, key=lambda r: cover_merit(r.flag, r.culling_rank, r.scores.get("overall"), r.stars, r.label))


def cover_reason(cover: ImageRow, frames: int) -> str:
    """Why a collapsed burst shows this frame, in a few words (the grid's "why" popup)."""
    if marked_by_user(cover):
        what = "your pick" if cover.flag == "pick" else (f"your {cover.stars}★" if cover.stars else "your colour label")
        return f"Burst of {frames}: shows {what}."
    if cover.flag == "reject":
        return f"Burst of {frames}: every frame is rejected; shows the best of them."
    return f"Burst of {frames}: shows the technically best frame (eyes, focus, clipping, then score)."


def burst_others(cover: ImageRow, others: Sequence[ImageRow]) -> str:
    """What the rest of a collapsed burst is like beside its cover, in one line (the "why" popup: a
    trial's W said "the technically best frame" but not what the others lacked)."""
    if not others:
        return ""
    kinds = (
        ("rejected by you", lambda r: r.flag == "reject"),
        ("suggested rejects", lambda r: r.suggested_reject),
        ("with eyes closed", lambda r: r.eyes_closed),
        ("with warnings", lambda r: bool(r.check_notes)),
    )
    counts = dict.fromkeys([k for k, _ in kinds] + ["passing every check"], 0)
    for row in others:
        counts[next((k for k, test in kinds if test(row)), "passing every check")] += 1
    parts = [f"{n} {kind.replace('rejects', 'reject') if n == 1 else kind}" for kind, n in counts.items() if n]
    cover_clean = not (cover.check_notes or cover.suggested_reject or cover.eyes_closed)
    if counts["passing every check"] and cover_clean and not marked_by_user(cover):
        parts[-1] += " (ranked below this one by score)"
    return f"The other {len(others)}: {', '.join(parts)}." + (" This frame passed every check." if cover_clean else "")


def arrange(
    rows: Iterable[ImageRow], state: FilterState, sort_key: str, descending: bool = False,
    keep: Collection[int] = (),
) -> tuple[list[ImageRow], dict[int, int]]:
    """Filter and sort rows; collapse bursts to their cover (burst_cover). Returns (rows, burst sizes).
    The rows whose ids are in `keep` stay whether or not they pass (the frames the user dealt with
    while this filter was on: ImageListModel.keep_listed)."""
    if state.accepts_everything():
        kept = list(rows)
    elif keep:
        kept = [r for r in rows if r.image_id in keep or state.accepts(r)]
    else:
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
        kept = singles + [burst_cover(group) for group in by_burst.values()]
        burst_sizes = {bid: len(group) for bid, group in by_burst.items()}
    # Scores sort best-first by default; "descending" flips whatever the natural order is.
    order, missing = _sort_key(sort_key)
    kept.sort(key=order)
    if descending:
        absent = [r for r in kept if missing(r)]
        kept = [r for r in kept if not missing(r)][::-1] + absent
    return kept, burst_sizes


def _sort_key(key: str) -> tuple[Callable[[ImageRow], Any], Callable[[ImageRow], bool]]:
    """sort_value's order as a cheap key (a float where it can be) and the test for a missing value."""
    if key == "name":
        return (lambda r: r.sort_name), (lambda r: False)
    if key == "capture_time":
        return (lambda r: sort_value(r, key)), (lambda r: r.capture_time is None)
    if key == "personal":
        return (lambda r: math.inf if r.personal is None else -r.personal), (lambda r: r.personal is None)

    def score(r: ImageRow) -> float:
        value = r.scores.get(key)
        return math.inf if value is None else -value

    return score, (lambda r: r.scores.get(key) is None)


_DIMENSION_INDEX = {d: n for n, d in enumerate(DIMENSIONS)}


class ScoreValues(Mapping[str, float]):
    """One scorer's scores of one image, read-only: a tuple in DIMENSIONS order behind a mapping
    (50,000 of these are made on every reload; a dict each costs four times as much)."""

    __slots__ = ("_values",)

    def __init__(self, values: tuple[float | None, ...]) -> None:
        self._values = values

    def __getitem__(self, key: str) -> float:
        position = _DIMENSION_INDEX.get(key)
        value = None if position is None else self._values[position]
        if value is None:
            raise KeyError(key)
        return value

    def get(self, key: str, default: Any = None) -> Any:
        """The score of `key`, or `default` when there is none."""
        position = _DIMENSION_INDEX.get(key)
        value = None if position is None else self._values[position]
        return default if value is None else value

    def __iter__(self) -> Iterator[str]:
        return (d for d, v in zip(DIMENSIONS, self._values, strict=True) if v is not None)

    def __len__(self) -> int:
        return sum(v is not None for v in self._values)

    def __repr__(self) -> str:
        return f"ScoreValues({dict(self)!r})"


_NO_SCORES: Mapping[str, float] = MappingProxyType({})


def load_rows(
    profile: Profile,
    scorer_id: str | None,
    personal_scorer_id: str | None = None,
    progress: Any = None,
    cancel: Any = None,
) -> list[ImageRow]:
    """Read every image with its marks and scores, `personal_scorer_id`'s overall as its personal score
    (the active adapter's, services.scoring.personal_scorer_id; runs in a worker thread).

    Only the columns the grid shows are read; check JSON is parsed only for frames in bursts (whose
    best frame it decides) and frames with a finding (their reasons, set membership), closed eyes
    come straight from SQL."""
    from aesthete_gui.imaging.best_frame import stored_culling_rank

    images = profile.catalog.grid_images()
    marks = profile.marks.grid_marks()
    scores = profile.scores.score_rows(scorer_id) if scorer_id else {}
    personal = profile.scores.score_rows(personal_scorer_id) if personal_scorer_id else {}
    overall = DIMENSIONS.index("overall")
    # checks reads answer for the current checks version: older ones count as not checked until a
    # rescan measures again
    checked = profile.checks.checked_ids()
    suggested = profile.checks.suggested_rejects()
    closed = profile.checks.closed_eyes_ids()
    ranks = {i: stored_culling_rank(*found) for i, found in profile.checks.burst_member_checks().items()}
    findings = profile.checks.findings()
    unmarked = (0, None, None)
    rows: list[ImageRow] = []
    append = rows.append
    for image_id, path, capture_time, folder_id, burst_id, status, error in images:
        stars, flag, label = marks.get(image_id, unmarked)
        mine = personal.get(image_id)
        values = scores.get(image_id)
        found = findings.get(image_id)
        append(
            ImageRow(
                image_id, path, capture_time, folder_id, burst_id, status, error, stars, flag, label,
                ScoreValues(values) if values else _NO_SCORES, mine[overall] if mine else None,
                image_id in suggested, image_id in closed, ranks.get(image_id, ()),
                status != "ok" or image_id in checked,
                check_notes(found) if found else (), set_kind(found) if found else "",
            )
        )  # fmt: skip
    return rows


CheckState = tuple[bool, bool, tuple[float, ...], bool, tuple[str, ...], str]
"""What the checks decide about a row: (suggested_reject, eyes_closed, culling_rank, checked,
check_notes, set_kind)."""


def load_check_states(profile: Profile, image_ids: Iterable[int], progress: Any = None, cancel: Any = None) -> dict[int, CheckState]:
    """The check-derived fields of some rows, read again after their checks were measured (a worker)."""
    from aesthete_gui.imaging.best_frame import stored_culling_rank

    suggested = profile.checks.suggested_rejects()
    states: dict[int, CheckState] = {}
    for image_id in image_ids:
        stored = profile.checks.get(image_id)
        if stored is None:
            states[image_id] = (False, False, (), False, (), "")
            continue
        closed = any(f.get("eyes") == "closed" for f in stored[1])
        states[image_id] = (image_id in suggested, closed, stored_culling_rank(*stored), True,
                            check_notes(stored[0]), set_kind(stored[0]))  # fmt: skip
    return states


VERDICT_SIGNS = {"reject": "✖", "warn": "⚠"}


def set_kind(checks: Iterable[Mapping[str, Any]]) -> str:
    """The kind of set the stored checks say the frame belongs to ("exposure bracket", "panorama",
    "focus stack"; "set" for a reason in no known words), or "" when it belongs to none."""
    reason = next((str(c.get("reason", "")) for c in checks if c.get("name") == "sequence"), None)
    if reason is None:
        return ""
    return next((kind for kind in KIND_NAMES.values() if kind in reason), "set")


def check_notes(checks: Iterable[Mapping[str, Any]]) -> tuple[str, ...]:
    """The stored checks that did not pass, as "✖ focus: reason" lines (rejects first)."""
    failed = [c for c in checks if c.get("verdict") in VERDICT_SIGNS]
    failed.sort(key=lambda c: c.get("verdict") != "reject")
    return tuple(f"{VERDICT_SIGNS[str(c['verdict'])]} {_titled(c)}" for c in failed)


def _titled(check: Mapping[str, Any]) -> str:
    """ "focus: reason", without saying the name twice when the reason starts with it."""
    name, reason = str(check.get("name", "")).replace("_", " "), str(check.get("reason", ""))
    return reason if reason.casefold().startswith(name.casefold() + ":") else f"{name}: {reason}"


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
    personal_scorer: str | None = None  # the active adapter's ranking ("taste:<name>"), if any
    keep: frozenset[int] = frozenset()  # the rows kept whether or not they pass (arrange's `keep`)


def load_and_arrange(
    profile: Profile,
    scorer_id: str | None,
    state: FilterState,
    sort_key: str,
    descending: bool,
    progress: Any = None,
    cancel: Any = None,
    keep: frozenset[int] = frozenset(),
) -> LoadedRows:
    """load_rows + arrange, both off the UI thread (sorting 10,000 rows is not free)."""
    personal = personal_scorer_id(profile)
    rows = load_rows(profile, scorer_id, personal)
    visible, burst_sizes = arrange(rows, state, sort_key, descending, keep)
    return LoadedRows(
        by_id={r.image_id: r for r in rows},
        visible=visible,
        burst_sizes=burst_sizes,
        index_of={r.image_id: i for i, r in enumerate(visible)},
        filter=state,
        sort_key=sort_key,
        descending=descending,
        personal_scorer=personal,
        keep=keep,
    )
