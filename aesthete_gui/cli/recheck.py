"""`aesthete recheck`: judge the stored checks again (shoot type, sets) and list the suggested rejects."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import TYPE_CHECKING, Any

from aesthete_gui.cli.common import UserError, add_shoot_type_option, open_cli_profile, up_to_date
from aesthete_gui.imaging.shoot_types import shoot_types
from aesthete_gui.safe_text import terminal_text

if TYPE_CHECKING:
    from aesthete_gui.store import Profile


def cmd_recheck(args: argparse.Namespace) -> int:
    """Judge every stored check again (no decoding) and list the suggested rejects with their reasons."""
    from aesthete_gui.services.verdicts import rejudge_library, suggested_reject_reasons

    profile = open_cli_profile(args)
    try:
        measured = _measure_outdated(profile, quiet=args.json)
        up_to_date(profile, judge=False)  # bursts grouped again after an update that changed grouping; judged below
        try:
            result = rejudge_library(profile, args.shoot_type)
        except OSError as error:
            raise UserError(f"could not remember the shoot type beside the profile: {error}") from error
        reasons = suggested_reject_reasons(profile)
        paths = {image.id: image.path for image in profile.catalog.images()}
        bursts = len(profile.catalog.bursts())  # as `aesthete bursts` lists them
        problems = _accept(profile, sorted(reasons)) if args.accept and reasons else []
    finally:
        profile.close()
    rows: list[dict[str, Any]] = sorted(({"id": i, "path": paths.get(i), "reasons": r} for i, r in reasons.items()),
                                        key=lambda row: (str(row["path"]).casefold(), str(row["path"])))  # A-Z, case aside
    copies = sorted(({"id": i, "path": paths.get(i), "copy_of": what} for i, what in result.copy_of.items()),
                    key=lambda row: (str(row["path"]).casefold(), str(row["path"])))  # fmt: skip
    if args.json:
        print(json.dumps({"shoot_type": result.shoot_type, "measured_again": measured, "judged_again": result.judged, "sets": result.sets,
                          "set_list": [{"set": name, "paths": sorted(str(paths.get(i)) for i in result.set_members.get(name, []))}
                                       for name in result.sets],
                          "copies": result.copies, "copy_list": copies, "bursts": bursts, "suggested_rejects": rows,
                          "accepted": len(rows) if args.accept else 0}, indent=2, ensure_ascii=False))  # fmt: skip
        return 1 if problems else 0
    label = shoot_types()[result.shoot_type].label
    judged = f"{result.judged} verdicts judged again" if result.judged else "verdicts up to date"
    print(f"shoot type: {label}; {judged}; {len(rows)} suggested rejects; "
          f"{_count(len(result.sets), 'set')} (brackets, panoramas, focus stacks); {_count(result.copies, 'copy', 'copies')} of another frame; "
          + (f"{_count(bursts, 'burst')} (`aesthete bursts` lists each with the frame it shows)" if bursts else "no bursts"))  # fmt: skip
    for name in result.sets:  # a trial could not tell from here which frames a bracket was
        frames = sorted((os.path.basename(paths.get(i) or str(i)) for i in result.set_members.get(name, [])), key=str.casefold)
        print(f"  set: {terminal_text(name)}" + (f": {terminal_text(', '.join(frames))}" if frames else ""))
    for copy in copies:  # a held10 trial could not tell from the command line which files were copies
        print(f"  copy: {terminal_text(str(copy['path']))} is {terminal_text(copy['copy_of'])}")
    for row in rows:
        print(f"{terminal_text(str(row['path']))}: {terminal_text('; '.join(row['reasons']))}")
    if args.accept:
        print(f"rejected the {_count(len(rows), 'suggested frame')} (flag 'reject'; `aesthete mark … --unflag` takes one back)" if rows
              else "nothing to accept: no suggested rejects")  # fmt: skip
    for problem in problems:
        print(f"aesthete: mark saved in the profile; {terminal_text(problem)}", file=sys.stderr)
    return 1 if problems else 0


def _accept(profile: Profile, image_ids: list[int]) -> list[str]:
    """Flag the suggested rejects as rejected, in the profile and their sidecars as `mark` does (the
    window's Accept suggested rejects); the sidecar problems, if any."""
    from aesthete_gui.services.library_marks import mark_images
    from aesthete_gui.services.sidecar_sync import sidecar_rules
    from aesthete_gui.store.records import UNSET

    result = mark_images(profile, image_ids, UNSET, "reject", UNSET, write_xmp=sidecar_rules(profile).write, naming="auto", pairs_as_one=None)
    problems = [str(problem) for problem in result.problems]
    if result.stopped is not None:  # said now: the error ends the command before the list is printed
        for problem in problems:
            print(f"aesthete: mark saved in the profile; {terminal_text(problem)}", file=sys.stderr)
        if result.marks:
            done = ", ".join(os.path.basename(p) for m in result.marks if (p := _path(profile, m.image_id)))
            print(f"aesthete: {len(result.marks)} of {result.wanted} suggested rejects flagged before the profile "
                  f"could take no more ({terminal_text(done)}); the others were left as they were", file=sys.stderr)  # fmt: skip
        result.raise_if_stopped()
    return problems


def _path(profile: Profile, image_id: int) -> str | None:
    record = profile.catalog.image_by_id(image_id)
    return None if record is None else record.path


def _count(n: int, one: str, many: str = "") -> str:
    """'1 set', '2 sets'."""
    return f"{n} {one if n == 1 else many or one + 's'}"


def _measure_outdated(profile: Profile, quiet: bool) -> int:
    """Measure again the photographs an older Aesthete checked (a rescan of the library's folders,
    which reads only them and what changed); how many were measured."""
    from aesthete_gui.services.library import import_folders

    outdated = profile.checks.outdated_count()
    if not outdated:
        return 0
    if not quiet:
        print(f"{outdated} photographs were checked by an older version of Aesthete: measuring them again …", flush=True)
    import_folders(profile, [f.path for f in profile.catalog.folders()], skip_missing=True)
    left = profile.checks.outdated_count()
    if left:
        print(f"aesthete: {left} photographs checked by an older version could not be measured again: their folders "
              "are missing or unreadable; they have no verdicts until `aesthete import` finds them", file=sys.stderr)  # fmt: skip
    return outdated - left


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the `recheck` command."""
    p = subparsers.add_parser(
        "recheck",
        help="judge the technical checks again from their stored measurements (after choosing a shoot type) "
             "and list the suggested rejects with their reasons",
    )  # fmt: skip
    add_shoot_type_option(p)
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--accept", action="store_true",
                   help="then flag every suggested reject listed as rejected (and write their sidecars, as `mark` does), "
                        "like the window's Accept suggested rejects")  # fmt: skip
    p.set_defaults(func=cmd_recheck)
