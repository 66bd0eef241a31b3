"""Open a profile: create the file and its folder, migrate the schema, and hand back a `Profile`."""

from __future__ import annotations

import os
from pathlib import Path

from aesthete_gui.store.checks import ChecksMixin
from aesthete_gui.store.migrations import migrate
from aesthete_gui.store.opinions import OpinionsMixin


class Profile(ChecksMixin, OpinionsMixin):
    """The personal profile: library, marks, choices, judgments, scores, runs, adapters.

    Thread-safe: each thread gets its own SQLite connection on first use. Every public method that
    changes something commits before it returns.
    """

    @property
    def schema_version(self) -> int:
        """The schema version of the open file."""
        return int(self._scalar("SELECT MAX(version) FROM schema_version") or 0)


def open_profile(path: str | os.PathLike[str]) -> Profile:
    """Open (creating when needed) the profile at `path`, migrated to the latest schema."""
    target = Path(path).expanduser()
    target.parent.mkdir(parents=True, exist_ok=True)
    profile = Profile(target)
    try:
        migrate(profile.conn)
    except BaseException:
        profile.close()
        raise
    return profile
