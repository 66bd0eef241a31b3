"""Fixtures for profile tests: a fresh profile file per test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from aesthete_gui.store import Profile, open_profile


@pytest.fixture
def profile(tmp_path: Path) -> Iterator[Profile]:
    """A new profile in a nested folder that does not exist yet."""
    opened = open_profile(tmp_path / "nested" / "profile.db")
    yield opened
    opened.close()
