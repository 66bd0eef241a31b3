"""Helpers the sub-commands share: opening the profile named on the command line."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from aesthete_gui.cli import UserError

if TYPE_CHECKING:
    from aesthete_gui.store import Profile


def open_cli_profile(args: argparse.Namespace) -> Profile:
    """The profile `--profile` names (or the default one); a ProfileError says why it cannot be used.

    Marks set through it are attributed to the command line in the mark history."""
    from aesthete_gui.settings import resolve_profile_path
    from aesthete_gui.store import open_profile

    try:
        return open_profile(resolve_profile_path(args.profile), actor="cli")
    except OSError as error:
        raise UserError(f"cannot open the profile: {error}") from error


@contextmanager
def saved_profile(args: argparse.Namespace) -> Iterator[Profile | None]:
    """The opened profile when `--save` asks to keep results (closed afterwards), else None."""
    if not args.save:
        yield None
        return
    profile = open_cli_profile(args)
    try:
        yield profile
    finally:
        profile.close()
