"""Where things live: the profile database, caches, model folders (platformdirs), and user settings."""

from __future__ import annotations

import os
from pathlib import Path

from platformdirs import user_cache_path, user_data_path

APP_NAME = "Aesthete"
PROFILE_ENV = "AESTHETE_PROFILE"
PROFILE_FILENAME = "profile.aesthete.db"


def default_profile_path() -> Path:
    """The per-user default profile file (not created here)."""
    return user_data_path(APP_NAME, appauthor=False) / PROFILE_FILENAME


def resolve_profile_path(explicit: str | os.PathLike[str] | None = None) -> Path:
    """The profile to use: the explicit path, else $AESTHETE_PROFILE, else the per-user default."""
    if explicit:
        return Path(explicit).expanduser()
    env = os.environ.get(PROFILE_ENV)
    if env:
        return Path(env).expanduser()
    return default_profile_path()


def thumbnail_cache_dir(profile_path: Path) -> Path:
    """Thumbnail cache for a profile: beside the default profile, or `<profile>.thumbs` for others."""
    if profile_path == default_profile_path():
        return user_cache_path(APP_NAME, appauthor=False) / "thumbnails"
    return profile_path.with_name(profile_path.name + ".thumbs")
