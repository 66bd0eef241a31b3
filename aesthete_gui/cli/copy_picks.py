"""`aesthete copy-picks`: copy or move the picked photographs with their partners and sidecars."""

from __future__ import annotations

import argparse
from typing import Any

from aesthete_gui.cli.common import UserError, open_cli_profile


def run_copy_picks(args: argparse.Namespace) -> int:
    """Copy (or move) the picked images, or those with another flag, and their sidecars to a folder."""
    from aesthete_gui.services.export_picks import ExportPicksError, export_picks, picked_image_ids

    profile = open_cli_profile(args)
    try:
        flag = None if args.flag == "any" else args.flag
        ids = picked_image_ids(profile, flag)
        try:
            result = export_picks(profile, ids, args.destination, move=args.move)
        except ExportPicksError as error:
            raise UserError(str(error)) from error
    finally:
        profile.close()
    for line in copy_summary_lines(result):
        print(line)
    return 0


def copy_summary_lines(result: Any) -> list[str]:
    """What `copy-picks` did, one fact a line: copied, already there, partners carried, orphans left, skipped."""
    from aesthete_gui.safe_text import terminal_text
    from aesthete_gui.services.export_picks import photographs

    verb = "moved" if result.moved else "copied"
    lines = [f"{photographs(len(result.copied))} {verb} to {terminal_text(result.destination)}"]
    if result.already_there:
        done = "their move was finished" if result.moved else "not copied again"
        lines.append(f"{photographs(len(result.already_there))} already there with the same bytes ({done})")
    lines += [f"  {terminal_text(note)}" for note in result.notes]
    lines += [f"  skipped {terminal_text(path)}: {terminal_text(reason)}" for path, reason in result.skipped]
    lines += [f"  {terminal_text(path)}: {terminal_text(reason)}" for path, reason in result.left_behind]
    if result.cleaned:
        lines.append(f"removed {result.cleaned} temporary files an interrupted copy had left")
    return lines


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the `copy-picks` command."""
    p = subparsers.add_parser("copy-picks", help="copy (or move) picked images with their RAW/JPEG partners and XMP "
                                                 "sidecars to a folder; files already there with the same bytes are skipped")
    p.add_argument("destination", metavar="DEST", help="folder to copy into (created when missing)")
    p.add_argument("--move", action="store_true",
                   help="move instead of copy: each original (with its RAW/JPEG partner and sidecars) is removed only "
                        "after its copy is verified, and the library follows the files (marks, scores and checks "
                        "stay with them); a move a kill interrupted is finished by the next run")  # fmt: skip
    p.add_argument("--flag", choices=["pick", "reject", "any"], default="pick", help="which images (default: picks)")
    p.set_defaults(func=run_copy_picks)
