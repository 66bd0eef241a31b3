"""Where things live: the profile database, caches, model folders (platformdirs), and user settings."""

from __future__ import annotations

import json
import logging
import math
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from platformdirs import user_cache_path, user_config_path, user_data_path

from aesthete_gui.atomic_write import folder_lock, write_text_atomically

APP_NAME = "Aesthete"
PROFILE_ENV = "AESTHETE_PROFILE"
PROFILE_FILENAME = "profile.aesthete.db"
STATE_ENV = "AESTHETE_STATE_FILE"
XMP_ENABLED_KEY = "xmp_enabled"
"""Profile setting: marks are written to XMP sidecars (default True), by the window and by `mark`."""
PAIRS_AS_ONE_KEY = "raw_jpeg_pairs_as_one"
"""Profile setting: a mark on either half of a RAW+JPEG pair applies to both (default False)."""
"""Overrides where the remembered window state and last profile are kept (tests point it at a temp dir)."""

log = logging.getLogger(__name__)


def default_profile_path() -> Path:
    """The per-user default profile file (not created here)."""
    return user_data_path(APP_NAME, appauthor=False) / PROFILE_FILENAME


class ProfilePathTextError(ValueError):
    """A profile path given empty (`--profile "$P"` with P unset), which is not a request for the
    default profile. The command line and the window show it as a user's error (cli.known_error,
    launch)."""


def resolve_profile_path(explicit: str | os.PathLike[str] | None = None) -> Path:
    """The profile to use: the explicit path, else $AESTHETE_PROFILE, else the per-user default. An
    explicit path or a set variable that is empty or blank is refused (ProfilePathTextError):
    `--profile "$P"` with P unset must not write into the default profile. (A name with a stray space
    or a control character is refused where every route meets, when the profile is opened.)"""
    if explicit is not None:
        return _not_empty(os.fspath(explicit), "--profile", "leave --profile out for the default profile")
    env = os.environ.get(PROFILE_ENV)
    if env is not None:
        return _not_empty(env, f"${PROFILE_ENV}", "unset it for the default profile")
    return default_profile_path()


def _not_empty(text: str | bytes, source: str, default_hint: str) -> Path:
    name = os.fsdecode(text)
    if not name.strip():
        raise ProfilePathTextError(f"{source} is empty: name the profile's file ({default_hint})")
    return Path(name).expanduser()


_CONTROL = frozenset({"Cc", "Zl", "Zp"})
"""Character categories no profile name holds: control characters and line or paragraph breaks
(format characters such as the zero-width non-joiner of Persian words stay allowed)."""


def profile_path_text_problem(name: str) -> str | None:
    """What is wrong with a profile path as text, or None: it begins or ends with a space (any
    Unicode space: a stray space names another, new file) or holds a control character or line
    break (a pasted line); spaces and letters of any script inside are fine."""
    import unicodedata

    if any(unicodedata.category(c) in _CONTROL for c in name):
        return "its name holds a control character or a line break (a pasted line?)"
    if name != name.strip():
        return "its name begins or ends with a space: a stray space names another, new file"
    return None


def thumbnail_cache_dir(profile_path: Path) -> Path:
    """Thumbnail cache for a profile: beside the default profile, or `<profile>.thumbs` for others."""
    if profile_path == default_profile_path():
        return user_cache_path(APP_NAME, appauthor=False) / "thumbnails"
    return profile_path.with_name(profile_path.name + ".thumbs")


DEFAULT_THUMBNAIL_CACHE_MB = 4096
"""Thumbnail cache limit when the profile's settings name none: about 250,000 grid thumbnails, or the
thumbnails of a 50,000-image library with ~20,000 loupe previews."""
THUMBNAIL_CACHE_SETTING = "thumbnail_cache_mb"


def profile_settings_path(profile_path: Path) -> Path:
    """The file that holds a profile's settings (the window's and the import's): `<profile>.settings.json`."""
    return profile_path.with_name(profile_path.name + ".settings.json")


_FALSE_WORDS = frozenset({"false", "no", "off", "0", ""})
_TRUE_WORDS = frozenset({"true", "yes", "on", "1"})


def as_flag(value: Any, default: bool) -> bool:
    """A yes/no setting as a bool: JSON true/false, 1/0, or the words a hand edit writes ("false",
    "no", "off"; any string used to count as yes, so {"xmp_enabled": "false"} still wrote sidecars);
    anything else is `default`."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return value != 0
    if isinstance(value, str):
        word = value.strip().lower()
        if word in _FALSE_WORDS:
            return False
        if word in _TRUE_WORDS:
            return True
    if value is not None and repr(value) not in _WARNED:  # said once, not at every read of the settings
        _WARNED.add(repr(value))
        log.warning("setting value %r is not yes or no: %s is used", value, "yes" if default else "no")
    return default


_WARNED: set[str] = set()


def profile_setting(profile_path: Path, key: str, default: Any = None) -> Any:
    """One value of a profile's settings file (`default` when absent or unreadable)."""
    try:
        stored = json.loads(profile_settings_path(profile_path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return default
    return stored.get(key, default) if isinstance(stored, dict) else default


def _read_settings(path: Path) -> dict[str, Any]:
    """The settings file as a dict ({} when absent; {} and a warning when unreadable)."""
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        log.warning("settings file %s unreadable (%s): its values are not used", path, exc)
        return {}
    return stored if isinstance(stored, dict) else {}


def _keep_unreadable(path: Path, values: dict[str, Any]) -> None:
    """Before a settings file that could not be read is replaced, keep its bytes beside it
    (`NAME.unreadable`), so a hand edit with a typo loses nothing."""
    if values or not path.is_file():
        return
    try:
        data = path.read_bytes()
        json.loads(data)
    except ValueError:
        backup = path.with_name(path.name + ".unreadable")
        write_text_atomically(backup, data.decode("utf-8", "replace"), durable=False)
        log.warning("settings file %s unreadable; kept as %s", path, backup)
    except OSError:
        return


def update_settings_file(
    path: Path, changes: Mapping[str, Any], removed: Iterable[str] = ()
) -> dict[str, Any]:
    """Change only the given keys of a settings file (read, change, write atomically, under a lock),
    so that keys another process wrote meanwhile are kept; the file's values afterwards.

    Raises OSError when the file cannot be written."""
    with folder_lock(path.parent):  # the window and the command line change one file in turns
        values = _read_settings(path)
        _keep_unreadable(path, values)
        values.update(changes)
        for key in removed:
            values.pop(key, None)
        text = json.dumps(values, indent=2, sort_keys=True, default=str)
        write_text_atomically(path, text, durable=False)  # on every click: no fsync, never partial
    return values


def profile_settings(profile_path: Path) -> dict[str, Any]:
    """Every value of a profile's settings file as it is now ({} when absent or unreadable)."""
    return _read_settings(profile_settings_path(profile_path))


def update_profile_settings(profile_path: Path, **changes: Any) -> dict[str, Any]:
    """Change the given keys of a profile's settings file, keeping every other key as it is on disk."""
    return update_settings_file(profile_settings_path(profile_path), changes)


def thumbnail_cache_limit_bytes(profile_path: Path) -> int:
    """The thumbnail cache's size limit in bytes (the `thumbnail_cache_mb` setting; at least 64 MB)."""
    value = profile_setting(profile_path, THUMBNAIL_CACHE_SETTING, DEFAULT_THUMBNAIL_CACHE_MB)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        value = DEFAULT_THUMBNAIL_CACHE_MB
    return int(max(64.0, float(value)) * 1024 * 1024)


def user_state_path() -> Path:
    """The per-user file that remembers the window layout and the last profile: $AESTHETE_STATE_FILE or
    `session.json` in the user's config folder."""
    env = os.environ.get(STATE_ENV)
    if env:
        return Path(env).expanduser()
    return user_config_path(APP_NAME, appauthor=False) / "session.json"


class UserState:
    """Per-user remembered state (a small JSON file, written atomically on every change)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or user_state_path()
        self.values: dict[str, Any] = {}
        try:
            stored = json.loads(self.path.read_text(encoding="utf-8"))
            if isinstance(stored, dict):
                self.values = stored
        except FileNotFoundError:
            pass
        except (OSError, ValueError) as exc:
            log.warning("remembered state %s unreadable (%s); starting fresh", self.path, exc)

    def get(self, key: str, default: Any = None) -> Any:
        """The remembered value of `key`."""
        return self.values.get(key, default)

    def update(self, **values: Any) -> None:
        """Remember `values` and save."""
        self.values.update(values)
        self.save()

    def reset(self) -> None:
        """Forget everything remembered."""
        self.values = {}
        self.save()

    def save(self) -> None:
        """Write the file atomically; a folder that cannot be written only costs the memory."""
        try:
            write_text_atomically(self.path, json.dumps(self.values, indent=2, sort_keys=True), durable=False)
        except OSError as exc:
            log.warning("could not remember the window state in %s (%s)", self.path, exc)


def gui_profile_path(explicit: str | os.PathLike[str] | None = None) -> Path:
    """The profile the app opens: the explicit path, else $AESTHETE_PROFILE, else the last profile
    opened (when it still exists), else the per-user default."""
    if explicit is not None or PROFILE_ENV in os.environ:
        return resolve_profile_path(explicit)
    last = UserState().get("last_profile")
    if isinstance(last, str) and last and Path(last).is_file():
        if profile_path_text_problem(last):  # remembered by an older version: not opened again
            return default_profile_path()
        return Path(last)
    return default_profile_path()
