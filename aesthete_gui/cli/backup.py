"""`aesthete backup COPY`: a whole copy of the profile, safe to make while the window or another command uses it."""

from __future__ import annotations

import argparse
from pathlib import Path

from aesthete_gui.cli.common import UserError, open_cli_profile
from aesthete_gui.imaging.photo_units import PHOTO_SUFFIXES
from aesthete_gui.safe_text import terminal_text
from aesthete_gui.services.output_guard import COMPANION_SUFFIXES


def cmd_backup(args: argparse.Namespace) -> int:
    """Copy the profile as committed now into a new file (a file copy made while it is open can miss
    every change still in its -wal file)."""
    target = Path(args.copy).expanduser()
    if target.exists() or target.is_symlink():
        raise UserError(f"{terminal_text(str(target))} is already there: name a new file (a backup never replaces one)")
    if not target.parent.is_dir():
        raise UserError(f"no folder {terminal_text(str(target.parent))} to write the copy in")
    profile = open_cli_profile(args)
    try:
        refused = _refused_name(target)
        if refused:
            raise UserError(f"not written: {terminal_text(str(target))} is {refused}; choose another name for the copy "
                            "(nothing was changed)")  # fmt: skip
        images = profile.catalog.image_count()
        try:
            profile.copy_to(target)
        except FileExistsError as error:
            raise UserError(f"{terminal_text(str(target))} appeared meanwhile: name a new file") from error
        except OSError as error:
            raise UserError(f"{terminal_text(str(target))}: {error.strerror or error} (the profile is unchanged)") from error
    finally:
        profile.close()
    print(f"copied the profile ({images} images, marks and history) to {terminal_text(str(target))}; "
          f"open it with: aesthete --profile {terminal_text(str(target))} images")
    return 0


def _refused_name(target: Path) -> str:
    """Why a copy may not take this name ("" when it may): a second attack's `backup P.db-journal` made
    SQLite take the copy for the profile's own rollback journal, and every later command failed."""
    name = target.name.casefold()  # P.db-JOURNAL is P.db-journal on a disk that ignores case
    if any(name.endswith(suffix.casefold()) for suffix in COMPANION_SUFFIXES):
        return "named as one of a profile's own files (a journal, its -wal, its settings)"
    if target.suffix.lower() in PHOTO_SUFFIXES | {".xmp"}:
        return "named as a photograph or a sidecar"
    return ""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the `backup` command."""
    p = subparsers.add_parser("backup", help="copy the profile into a new file, safely even while it is in use",
                              description="Copy the profile as committed now into a new file. Safe while the window "
                                          "or another command uses the profile; a plain file copy then may miss "
                                          "changes still held in its -wal file.")  # fmt: skip
    p.add_argument("copy", metavar="COPY", help="the new file to write (never an existing one)")
    p.set_defaults(func=cmd_backup)
