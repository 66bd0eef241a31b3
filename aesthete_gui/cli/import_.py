"""`aesthete import`: import folders of photographs into the profile (the module is named
`import_` because `import` is a Python keyword)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from aesthete_gui.cli import UserError
from aesthete_gui.cli.common import (
    ProgressBar,
    add_shoot_type_option,
    ctrl_c_cancels,
    open_cli_profile,
    use_shoot_type,
)
from aesthete_gui.jobs import CancelToken
from aesthete_gui.safe_text import terminal_text

if TYPE_CHECKING:
    from aesthete_gui.services.library import ImportSummary

EXIT_INTERRUPTED = 130


def import_json(summary: ImportSummary) -> dict[str, Any]:
    """`import --json`: the import's counts, problems as [path, reason] pairs."""
    data = asdict(summary)
    data["problems"] = [list(p) for p in summary.problems]
    data["sidecar_problems"] = [list(p) for p in summary.sidecar_problems]
    return data


def cmd_import(args: argparse.Namespace) -> int:
    """Import folders; exit 0 when the import ran (bad files are recorded, not fatal)."""
    from aesthete_gui.services.library import import_folders

    absent = [folder for folder in args.dirs if not os.path.isdir(folder)]
    if absent:  # said before the profile is opened: a failed first import leaves no empty profile behind
        raise UserError(terminal_text(f"not a folder: {absent[0]}"))
    profile = open_cli_profile(args, must_exist=False)
    token = CancelToken()
    bar = ProgressBar()
    try:
        use_shoot_type(profile, args.shoot_type)  # the import's regrouping judges under it
        with ctrl_c_cancels(token):
            summary = import_folders(profile, args.dirs, progress=None if args.quiet else bar,
                                     cancel=token, workers=args.workers, features=args.features,
                                     previews=args.previews)  # fmt: skip
    except FileNotFoundError as error:
        raise UserError(terminal_text(error)) from error
    finally:
        bar.close()
        profile.close()
    if args.json:
        print(json.dumps(import_json(summary), indent=2))
    else:
        print(
            f"{summary.found} image {'file' if summary.found == 1 else 'files'} found: {summary.imported} imported, {summary.unchanged} unchanged, "
            f"{summary.moved} moved, {summary.errors} could not be read, {summary.missing} missing; "
            f"{summary.bursts} bursts; {summary.marks_from_xmp} marks read from XMP "
            f"({summary.seconds:.1f} s)"
        )
        if summary.videos:
            clips = "1 video" if summary.videos == 1 else f"{summary.videos} videos"
            print(f"  {clips} left out: Aesthete imports photographs only (the files stay where they are)")
        from aesthete_gui.imaging.faces import unavailable_reason

        reason = unavailable_reason()
        if reason:
            print(f"note: {reason}")
        if summary.sidecar_conflicts:
            print(f"  {summary.sidecar_conflicts} marks changed both here and in a sidecar: the later change "
                  "was kept, the other is in the image's mark history")  # fmt: skip
        for path, reason in summary.problems[:20]:
            print(f"  {terminal_text(path)}: {terminal_text(reason)}")
        if len(summary.problems) > 20:
            print(f"  … and {len(summary.problems) - 20} more (see `aesthete images --status error`)")
        for path, reason in summary.sidecar_problems[:20]:
            print(f"  {terminal_text(path)}: imported; {terminal_text(reason)}")
        if len(summary.sidecar_problems) > 20:
            print(f"  … and {len(summary.sidecar_problems) - 20} more sidecars not read")
    if summary.cancelled:
        print("aesthete: import cancelled; run it again to finish", file=sys.stderr)
        return EXIT_INTERRUPTED
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the `import` command."""
    p = subparsers.add_parser("import", help="import folders of images into the profile (recursive)")
    p.add_argument("dirs", nargs="+", metavar="DIR", help="folders to import")
    p.add_argument("--workers", type=int, default=None, help="worker processes (default: all cores)")
    p.add_argument("--features", action="store_true", help="also compute the image-property features")
    p.add_argument("--previews", action="store_true",
                   help="also build the ~1024 px previews now (default: when first shown)")  # fmt: skip
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    add_shoot_type_option(p)
    p.set_defaults(func=cmd_import)
