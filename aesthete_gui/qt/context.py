"""What every widget is given: the profile, the job runner, the selection, thumbnails, settings, signals."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Iterator, MutableMapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoStack

from aesthete_gui.engine.scorers import BUILTIN
from aesthete_gui.qt.profile_events import ProfileEventRelay
from aesthete_gui.qt.task_runner import TaskRunner
from aesthete_gui.qt.thumbnail_loader import ThumbnailLoader
from aesthete_gui.settings import DEFAULT_THUMBNAIL_CACHE_MB, update_settings_file

if TYPE_CHECKING:
    from aesthete_gui.store import Profile

log = logging.getLogger(__name__)

DEFAULT_SETTINGS: dict[str, Any] = {
    "theme": "dark",  # "dark" | "light"
    "xmp_enabled": True,  # write marks to XMP sidecars
    "raw_jpeg_pairs_as_one": False,  # a mark on either half of a RAW+JPEG pair applies to both
    "judge": None,  # None = no judge configured; else a model folder, hub id or server URL
    "scorer": BUILTIN,  # the scorer id used by "Score selection / library"
    "preset": "photography",  # rubric / domain preset
    "welcome_done": False,  # the first-run welcome was shown
    "saved_filters": {},  # name -> filter dict (see widgets.filter_bar.FilterState)
    "recent_folders": [],
    "thumbnail_cache_mb": DEFAULT_THUMBNAIL_CACHE_MB,  # the thumbnail cache's size limit (least recently used go)
}


class AppSettings(MutableMapping[str, Any]):
    """User settings of one profile, kept as JSON beside it and saved on every change.

    A change writes only its own key into the file (settings.update_settings_file: read, change,
    write, under a lock), so a key the command line changed while the window was open (the shoot
    type an import remembered) is kept, and read into this copy at the same time."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._values: dict[str, Any] = dict(DEFAULT_SETTINGS)
        if path is not None and path.exists():
            try:
                stored = json.loads(path.read_text(encoding="utf-8"))
                if isinstance(stored, dict):
                    self._values.update(stored)
            except (OSError, ValueError) as exc:
                log.warning("settings file %s unreadable (%s); using defaults", path, exc)

    @classmethod
    def for_profile(cls, profile_path: Path) -> AppSettings:
        """The settings file that belongs to a profile: `<profile>.settings.json`."""
        from aesthete_gui.settings import profile_settings_path

        return cls(profile_settings_path(profile_path))

    def __getitem__(self, key: str) -> Any:
        return self._values[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self._values[key] = value
        self._store({key: value}, ())

    def __delitem__(self, key: str) -> None:
        del self._values[key]
        self._store({}, (key,))

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def _store(self, changes: dict[str, Any], removed: Iterable[str]) -> None:
        """Write these keys into the file, keeping the others as they are there, and take the file's
        other keys in (no file when constructed without a path)."""
        if self.path is None:
            return
        try:  # saved on every change (view, sort, filter): no fsync, and a read-only folder is no error
            stored = update_settings_file(self.path, changes, removed)
        except OSError as exc:
            log.warning("could not save settings to %s (%s)", self.path, exc)
            return
        self._values.update(stored)


class SelectionModel(QObject):
    """The images the user selected, in the order shown; `changed` carries the new id list."""

    changed = Signal(list)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._ids: list[int] = []

    def image_ids(self) -> list[int]:
        """The selected image ids (a copy)."""
        return list(self._ids)

    def current(self) -> int | None:
        """The image with keyboard focus (the last one selected), or None."""
        return self._ids[-1] if self._ids else None

    def set_image_ids(self, ids: Iterable[int]) -> None:
        """Replace the selection; emits `changed` only when it differs."""
        new = list(dict.fromkeys(int(i) for i in ids))
        if new != self._ids:
            self._ids = new
            self.changed.emit(list(new))


class AppSignals(QObject):
    """Application-wide notifications that something in the profile changed: the profile's events
    (its repositories' and other processes' changes) arrive here through qt/profile_events.py;
    views connect to these signals."""

    library_changed = Signal()  # images added or removed (import finished, folder removed)
    scores_changed = Signal()  # scores stored (scoring job, distillation, adapter)
    choices_changed = Signal()  # the user's A/B choices changed (compare, set, undo)
    marks_changed = Signal(list)  # image ids whose stars / flag / label changed
    checks_changed = Signal(list)  # image ids whose technical checks and faces were measured
    adapters_changed = Signal()  # a taste adapter was trained, activated or deactivated
    settings_changed = Signal(str)  # the settings key that changed (theme, scorer, judge, ...)
    status_message = Signal(str)  # a short line for the status bar


@dataclass
class AppContext:
    """Everything a view needs; passed to each widget's constructor as `context`."""

    profile: Profile
    runner: TaskRunner
    selection: SelectionModel
    thumbnails: ThumbnailLoader
    settings: AppSettings
    signals: AppSignals
    profile_path: Path | None = None
    cache_dir: Path | None = None
    undo_stack: QUndoStack = field(default_factory=QUndoStack)  # marks and choices, every view
    events: ProfileEventRelay | None = None  # profile events re-emitted as `signals`, and the poll

    def __post_init__(self) -> None:
        if self.events is None:
            self.events = ProfileEventRelay(self.profile, self.signals)

    def set_setting(self, key: str, value: Any) -> None:
        """Change a setting, save it, and tell the views (`signals.settings_changed`)."""
        self.settings[key] = value
        self.signals.settings_changed.emit(key)

    def close(self) -> None:
        """Stop background work: jobs are cancelled, thumbnail threads end, events stop."""
        if self.events is not None:
            self.events.close()
        self.runner.shutdown(wait=False)
        self.thumbnails.close()


def build_context(profile_path: Path, cache_dir: Path | None = None) -> AppContext:
    """Open (or create) the profile at `profile_path` and wire up runner, thumbnails and settings."""
    from aesthete_gui.qt.thumbnail_loader import profile_thumbnail_resolver
    from aesthete_gui.settings import thumbnail_cache_dir
    from aesthete_gui.store import open_profile

    profile_path = Path(profile_path)
    profile = open_profile(profile_path, actor="window")  # makes its folder, or says in one line why it cannot
    profile.changes.start()  # from now on, other processes' changes are published on its hub
    cache = cache_dir or thumbnail_cache_dir(profile_path)
    cache.mkdir(parents=True, exist_ok=True)
    return AppContext(
        profile=profile,
        runner=TaskRunner(),
        selection=SelectionModel(),
        thumbnails=ThumbnailLoader(profile_thumbnail_resolver(profile, cache)),
        settings=AppSettings.for_profile(profile_path),
        signals=AppSignals(),
        profile_path=profile_path,
        cache_dir=cache,
    )
