"""Shared fixture: a fresh copy of a module's `template` profile for each test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from aesthete_gui.store import Profile, open_profile
from tests.services.taste_library import copy_profile


@pytest.fixture
def profile(template: Path, tmp_path: Path) -> Iterator[Profile]:
    """A copy of the module's `template` library (modules define `template`), opened and closed."""
    opened = open_profile(copy_profile(template, tmp_path / "p"))
    yield opened
    opened.close()
