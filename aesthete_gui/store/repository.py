"""What every repository shares: the profile's database, and the marker of the methods that write.

A repository method that changes data is decorated with `@writes`: it runs one transaction
(`ProfileDatabase.transaction`), announces what changed, and the events are published after the
commit. tests/test_layering.py finds these methods by the marker and checks that no view calls one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from aesthete_gui.store.connection import ProfileDatabase

Method = TypeVar("Method", bound=Callable[..., Any])

WRITER_MARK = "__profile_writer__"


def writes(method: Method) -> Method:
    """Mark a repository method that commits a change and announces it."""
    setattr(method, WRITER_MARK, True)
    return method


def is_writer(method: object) -> bool:
    """True for a method marked with `@writes`."""
    return bool(getattr(method, WRITER_MARK, False))


class Repository:
    """A group of tables of one profile, read and written through its database."""

    def __init__(self, database: ProfileDatabase) -> None:
        self._db = database
