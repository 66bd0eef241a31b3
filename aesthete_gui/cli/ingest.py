"""`aesthete ingest`: copy a memory card into the library (renamed, hash-verified, optional backup), then import."""

from __future__ import annotations

import argparse
import json
import sys

from aesthete_gui.jobs import CancelToken
from aesthete_gui.safe_text import terminal_text

EXIT_INTERRUPTED = 130


def cmd_ingest(args: argparse.Namespace) -> int:
    """Copy, verify, skip what is already there, and import the destination."""
    from aesthete_gui.cli.common import open_cli_profile
    from aesthete_gui.cli.library import _ctrl_c_cancels, _ProgressBar
    from aesthete_gui.services.card_ingest import ingest_and_import, ingest_card

    token = CancelToken()
    bar = _ProgressBar()
    progress = None if args.quiet else bar
    profile = None if args.no_import else open_cli_profile(args)
    try:
        with _ctrl_c_cancels(token):
            if profile is None:
                summary = ingest_card(args.source, args.destination, args.template, args.backup,
                                      progress, token)  # fmt: skip
            else:
                summary = ingest_and_import(profile, args.source, args.destination, args.template,
                                            args.backup, progress, token, workers=args.workers)  # fmt: skip
    finally:
        bar.close()
        if profile is not None:
            profile.close()
    if args.json:
        from aesthete_gui.cli.library import import_json

        data = dict(summary.__dict__)
        data["imported"] = import_json(summary.imported) if summary.imported is not None else None
        print(json.dumps(data, indent=2, default=str))
    else:
        backup = f", {summary.backed_up} backed up" if args.backup else ""
        print(f"{summary.found} files on the card: {summary.copied} copied and verified{backup}, "
              f"{summary.skipped} already there")  # fmt: skip
        if summary.imported is not None:
            print(
                f"imported: {summary.imported.imported} new, {summary.imported.marks_from_xmp} marks read from XMP"
            )
        for path, reason in summary.problems:
            print(f"  {terminal_text(path)}: {terminal_text(reason)}", file=sys.stderr)
    if summary.cancelled:
        print(
            "aesthete: ingest cancelled; nothing half-copied was kept; run it again to finish",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    return 1 if summary.problems else 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ingest command."""
    from aesthete_gui.services.card_ingest import DEFAULT_TEMPLATE, TEMPLATE_FIELDS

    p = subparsers.add_parser(
        "ingest", help="copy a memory card into a folder (renamed, verified), then import it"
    )
    p.add_argument("source", metavar="SOURCE", help="the card (or any folder) to copy from")
    p.add_argument("destination", metavar="DEST", help="folder to copy into (created when missing)")
    p.add_argument("--backup", metavar="DIR", help="also copy every file to this second folder")
    p.add_argument("--template", default=DEFAULT_TEMPLATE,
                   help=f"renaming template with {{{'}, {'.join(TEMPLATE_FIELDS)}}} "
                        f"(default: {DEFAULT_TEMPLATE.replace('%', '%%')})")  # fmt: skip
    p.add_argument(
        "--no-import", action="store_true", help="only copy; do not import into the profile"
    )
    p.add_argument(
        "--workers", type=int, default=None, help="import worker processes (default: all cores)"
    )
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_ingest)
