"""Shipped data files are found through one accessor: here, from the source checkout's folders."""

from __future__ import annotations

from pathlib import Path

import pytest

from aesthete_gui.resources import (
    KINDS,
    ResourceNotFoundError,
    checkout_root,
    installed_data_root,
    resource_dir,
    resource_file,
)

REPO = Path(__file__).resolve().parents[1]


def test_a_checkout_reads_the_repository_folders() -> None:
    assert installed_data_root() is None
    assert checkout_root() == REPO
    assert resource_dir("rubrics") == REPO / "resources" / "rubrics"
    assert resource_dir("models") == REPO / "models"
    assert resource_file("desktop", "org.aesthete.Aesthete.svg").read_text(encoding="utf-8").startswith("<")
    assert all(resource_dir(kind).is_dir() for kind in KINDS)


def test_unknown_kind_and_missing_file_say_what_is_wrong() -> None:
    with pytest.raises(ValueError, match="unknown resource kind 'fonts'"):
        resource_dir("fonts")
    with pytest.raises(ResourceNotFoundError, match=r"styles file is missing: .*sepia\.qss"):
        resource_file("styles", "sepia.qss")
