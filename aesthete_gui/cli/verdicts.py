"""`aesthete recheck`: judge the stored checks again (shoot type, sets) and list the suggested rejects."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from aesthete_gui.cli.common import UserError, open_cli_profile
from aesthete_gui.imaging.shoot_types import shoot_types
from aesthete_gui.safe_text import terminal_text

if TYPE_CHECKING:
    from aesthete_gui.store import Profile


def add_shoot_type_option(parser: argparse.ArgumentParser) -> None:
    """`--shoot-type NAME`: the profile's shoot type from now on (remembered, as in the window)."""
    kinds = shoot_types()
    parser.add_argument(
        "--shoot-type", choices=list(kinds), metavar="TYPE", default=None,
        help="the kind of shoot, which decides which checks matter and how strict they are: "
             + ", ".join(f"{name} ({kind.label})" for name, kind in kinds.items())
             + "; remembered for the profile (the window's Culling ▸ Shoot type); default: the profile's, else general",
    )  # fmt: skip


def use_shoot_type(profile: Profile, name: str | None) -> None:
    """Make `name` the profile's shoot type and judge the stored checks again under it (None: nothing)."""
    if name is None:
        return
    from aesthete_gui.services.verdicts import rejudge_library

    try:
        rejudge_library(profile, name)
    except OSError as error:
        raise UserError(f"could not remember the shoot type beside the profile: {error}") from error


def cmd_recheck(args: argparse.Namespace) -> int:
    """Judge every stored check again (no decoding) and list the suggested rejects with their reasons."""
    from aesthete_gui.services.verdicts import rejudge_library, suggested_reject_reasons

    profile = open_cli_profile(args)
    try:
        try:
            result = rejudge_library(profile, args.shoot_type)
        except OSError as error:
            raise UserError(f"could not remember the shoot type beside the profile: {error}") from error
        reasons = suggested_reject_reasons(profile)
        paths = {image.id: image.path for image in profile.catalog.images()}
    finally:
        profile.close()
    rows: list[dict[str, Any]] = [{"id": i, "path": paths.get(i), "reasons": r} for i, r in reasons.items()]
    if args.json:
        print(json.dumps({"shoot_type": result.shoot_type, "judged_again": result.judged, "sets": result.sets,
                          "copies": result.copies, "suggested_rejects": rows}, indent=2, ensure_ascii=False))  # fmt: skip
        return 0
    label = shoot_types()[result.shoot_type].label
    print(f"shoot type: {label}; {result.judged} verdicts judged again; {len(rows)} suggested rejects; "
          f"{len(result.sets)} sets (brackets, panoramas, focus stacks); {result.copies} copies of another frame")  # fmt: skip
    for name in result.sets:
        print(f"  set: {terminal_text(name)}")
    for row in rows:
        print(f"{terminal_text(str(row['path']))}: {terminal_text('; '.join(row['reasons']))}")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """`aesthete recheck [--shoot-type TYPE] [--json]`."""
    p = subparsers.add_parser(
        "recheck",
        help="judge the technical checks again from their stored measurements (after choosing a shoot type) "
             "and list the suggested rejects with their reasons",
    )  # fmt: skip
    add_shoot_type_option(p)
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=cmd_recheck)
