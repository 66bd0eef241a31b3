"""Typed records read from the profile (one frozen dataclass per table)."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, Literal

from aesthete_gui.engine.judgments import PairwiseJudgment, PointwiseJudgment, SetJudgment

ImageStatus = Literal["ok", "error", "missing"]
Flag = Literal["pick", "reject"]
Winner = Literal["a", "b", "tie"]
Judgment = PairwiseJudgment | PointwiseJudgment | SetJudgment

COLOR_LABELS: tuple[str, ...] = ("Red", "Yellow", "Green", "Blue", "Purple")
"""Colour labels as Lightroom, darktable, digiKam and Capture One name them in XMP."""
FLAGS: tuple[str, ...] = ("pick", "reject")
WINNERS: tuple[str, ...] = ("a", "b", "tie")

MarkSource = Literal["window", "cli", "sidecar", "undo", "import", "script", "profile", ""]
"""Who set a mark value: the window, the command line, another program through the XMP sidecar, an
undo in the window, an import (marks read from a sidecar), a Python program using the store, or
"profile" (this profile, window or command line, before sources were recorded); "" when unknown."""
MARK_SOURCES: tuple[str, ...] = ("window", "cli", "sidecar", "undo", "import", "script", "profile", "")
SOURCE_NAMES: dict[str, str] = {
    "window": "the window",
    "cli": "the command line",
    "sidecar": "another program (XMP sidecar)",
    "undo": "an undo in the window",
    "import": "an import (XMP sidecar)",
    "script": "a script",
    "profile": "this profile",
    "": "unknown",
}
"""How the mark history names who set a value."""

Marks = tuple[int, str | None, str | None]
"""(stars, flag, label) as the marks table stores them."""


class Unset(enum.Enum):
    """Marks an argument that was not given (None means "clear")."""

    UNSET = enum.auto()


UNSET = Unset.UNSET


def normalize_label(label: str | None) -> str | None:
    """The canonical colour label for `label` (any case), None for None/""; ValueError otherwise."""
    if label is None or label == "":
        return None
    for name in COLOR_LABELS:
        if name.lower() == label.strip().lower():
            return name
    raise ValueError(f"unknown colour label {label!r}; expected one of {', '.join(COLOR_LABELS)}")


def comparable(name: str, value: Any) -> Any:
    """A mark field's value as the profile stores it (stars None is 0, a label in its canonical case)."""
    if name == "stars":
        return int(value or 0)
    if name == "label":
        return normalize_label(value)
    return value or None


@dataclass(frozen=True)
class FolderRecord:
    """A folder the user imported."""

    id: int
    path: str
    added_at: float
    scanned_at: float | None


@dataclass(frozen=True)
class ImageRecord:
    """One image file known to the profile; status says whether it decoded, failed or vanished."""

    id: int
    path: str
    folder_id: int | None = None
    content_hash: str | None = None
    phash: int | None = None
    size: int | None = None
    mtime_ns: int | None = None
    width: int | None = None
    height: int | None = None
    format: str | None = None
    capture_time: str | None = None
    exif: dict[str, Any] = field(default_factory=dict)
    status: ImageStatus = "ok"
    error: str | None = None
    burst_id: int | None = None
    thumb_path: str | None = None
    preview_path: str | None = None
    added_at: float = 0.0
    updated_at: float = 0.0

    @property
    def camera(self) -> str | None:
        """Camera make/model from the stored metadata, when known."""
        value = self.exif.get("camera")
        return str(value) if value else None

    @property
    def lens(self) -> str | None:
        """Lens from the stored metadata, when known."""
        value = self.exif.get("lens")
        return str(value) if value else None


@dataclass(frozen=True)
class ImageUpdate:
    """What an import learned about one file, written by `Profile.write_images`.

    `status` "error" keeps the reason in `error`; identity and metadata fields may then be None.
    """

    path: str
    folder_id: int | None
    status: ImageStatus
    size: int | None = None
    mtime_ns: int | None = None
    content_hash: str | None = None
    phash: int | None = None
    width: int | None = None
    height: int | None = None
    format: str | None = None
    capture_time: str | None = None
    exif: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    thumb_path: str | None = None
    preview_path: str | None = None
    initial_marks: tuple[int, Flag | None, str | None] | None = None
    """(stars, flag, label) to store when the image has no marks yet (e.g. from its XMP sidecar)."""


@dataclass(frozen=True)
class MarkRecord:
    """The user's culling marks on one image, who set them (see `MarkSource`) and when."""

    image_id: int
    stars: int = 0
    flag: Flag | None = None
    label: str | None = None
    updated_at: float = 0.0
    source: str = ""


@dataclass(frozen=True)
class MarkHistoryEntry:
    """An earlier value of an image's marks: who set it (`source`), when (`changed_at`), and why it is
    no longer the current one (`reason`, recorded at `recorded_at`)."""

    image_id: int
    source: str
    stars: int | None
    flag: str | None
    label: str | None
    changed_at: float
    reason: str
    recorded_at: float = 0.0


HeldMarks = tuple[int | None, Flag | None, str | None]
"""Marks as a sidecar holds them (imaging.xmp.XmpMarks' stars, flag and label)."""


@dataclass(frozen=True)
class SidecarState:
    """An image's sidecar when the profile and it last agreed: where, size, mtime, content hash, when."""

    image_id: int
    sidecar_path: str
    size: int
    mtime_ns: int
    content_hash: str
    synced_at: float
    held: HeldMarks | None = None
    """The marks the sidecar held then, as read from it (stars, flag, label); None: not recorded."""


@dataclass(frozen=True)
class SyncChange:
    """What one sync decided for an image; applied only if its marks are still as they were read.

    `history` holds values that lose without being stored as the current marks (a sidecar value the
    profile's later mark beats); a profile value replaced by `marks` is kept in the history by the
    marks repository itself, with the reason of a "profile" entry given here.
    """

    image_id: int
    expected_updated_at: float
    marks: Marks | None = None
    state: SidecarState | None = None
    history: tuple[MarkHistoryEntry, ...] = ()
    unreadable: tuple[str, ...] = ()  # sidecar values that could not be read (the profile kept its own)
    behind: bool = False
    """The sidecar's marks are as last seen and the profile's are later (a write of them failed):
    the profile keeps its marks, and the sidecar is behind them."""


@dataclass(frozen=True)
class BurstRecord:
    """A group of frames shot in quick succession; `edited` once the user changed it by hand."""

    id: int
    image_ids: tuple[int, ...]
    label: str | None = None
    edited: bool = False
    created_at: float = 0.0


@dataclass(frozen=True)
class ChoiceRecord:
    """One of the user's pairwise choices: a was shown first/left, b second/right."""

    id: int
    image_a: int
    image_b: int
    path_a: str
    path_b: str
    winner: Winner
    dimension: str
    created_at: float
    session: str | None = None
    app_state: dict[str, Any] | None = None

    @property
    def winner_id(self) -> int | None:
        """The id of the chosen image, or None for a tie."""
        return {"a": self.image_a, "b": self.image_b}.get(self.winner)


@dataclass(frozen=True)
class StoredJudgment:
    """A judgment as stored: the engine's record plus where it came from."""

    id: int
    judgment: Judgment
    protocol: str
    run_id: int | None
    preset: str | None
    preset_version: str | None
    created_at: float


@dataclass(frozen=True)
class RunRecord:
    """A long job (bridge, distillation, import …) with its parameters, progress and result."""

    id: int
    kind: str
    params: dict[str, Any]
    status: str
    done: int
    total: int | None
    result: Any
    created_at: float
    updated_at: float
    finished_at: float | None


@dataclass(frozen=True)
class AdapterRecord:
    """A trained personal adapter: its weights blob and held-out metrics."""

    id: int
    name: str
    base_scorer: str
    blob: bytes
    metrics: dict[str, Any]
    active: bool
    created_at: float
