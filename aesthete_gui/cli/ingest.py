"""`aesthete ingest`: copy a memory card into the library (renamed, hash-verified, optional backup), then import."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from aesthete_gui.jobs import CancelToken, Progress
from aesthete_gui.safe_text import terminal_text

if TYPE_CHECKING:
    from aesthete_gui.services.card_ingest import IngestSummary

EXIT_INTERRUPTED = 130


class _FinishingBar:
    """The progress bar, which is drawn full and its line ended before the summary is printed."""

    def __init__(self) -> None:
        from aesthete_gui.cli.common import ProgressBar

        self.bar = ProgressBar()
        self.last: Progress | None = None

    def __call__(self, progress: Progress) -> None:
        self.last = progress
        self.bar(progress)

    def finish(self, complete: bool) -> None:
        """Draw the last step as done (unless the job stopped early), then end the line."""
        last = self.last
        if complete and last is not None and last.total:
            self.bar(Progress(last.total, last.total, last.message))
        self.bar.close()
        self.bar.stream.flush()


def summary_lines(summary: IngestSummary, backup: bool) -> list[str]:
    """The summary a photographer reads after an ingest (one fact a line; only the facts that apply)."""
    copied = f", {summary.backed_up} backed up" if backup else ""
    lines = [f"{summary.found} photographs on the card: {summary.copied} copied and verified{copied}, "
             f"{summary.skipped} already there (same bytes)"]  # fmt: skip
    if summary.sidecars:
        lines.append(f"{summary.sidecars} XMP sidecars copied with their photographs")
    if summary.completed:
        lines.append(f"{summary.completed} photographs an earlier ingest left half-done were completed "
                     "(their sidecar or RAW/JPEG partner was missing)")  # fmt: skip
    if summary.not_copied:
        kinds = ", ".join(f"{count} {kind}" for kind, count in sorted(summary.not_copied.items()))
        lines.append(f"not copied (not photographs): {kinds}")
    if summary.cleaned:
        lines.append(f"removed {summary.cleaned} temporary files an interrupted ingest had left")
    if summary.imported is not None:
        unreadable = summary.imported.errors
        could_not = f", {unreadable} could not be read (listed with their reason in the library)" if unreadable else ""
        lines.append(f"imported: {summary.imported.imported} new{could_not}, "
                     f"{summary.imported.marks_from_xmp} marks read from XMP")  # fmt: skip
    return lines


def cmd_ingest(args: argparse.Namespace) -> int:
    """Copy, verify, skip what is already there, and import the destination."""
    from aesthete_gui.cli.common import ctrl_c_cancels, open_cli_profile
    from aesthete_gui.services.card_ingest import ingest_and_import, ingest_card

    token = CancelToken()
    bar = _FinishingBar()
    progress = None if args.quiet else bar
    profile = None if args.no_import else open_cli_profile(args, must_exist=False)
    summary = None
    try:
        with ctrl_c_cancels(token):
            if profile is None:
                summary = ingest_card(args.source, args.destination, args.template, args.backup,
                                      progress, token)  # fmt: skip
            else:
                summary = ingest_and_import(profile, args.source, args.destination, args.template,
                                            args.backup, progress, token, workers=args.workers)  # fmt: skip
    finally:
        bar.finish(summary is not None and not summary.cancelled)
        if profile is not None:
            profile.close()
    if args.json:
        from aesthete_gui.cli.import_ import import_json

        data = dict(summary.__dict__)
        data["imported"] = import_json(summary.imported) if summary.imported is not None else None
        print(json.dumps(data, indent=2, default=str))
    else:
        for line in summary_lines(summary, bool(args.backup)):
            print(line)
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
                   help=f"renaming template with {{{'}, {'.join(TEMPLATE_FIELDS)}}}, ending with {{ext}} "
                        f"(the card's extension as written) or {{ext_lower}}; a RAW+JPEG pair and its "
                        f"sidecars share one name (default: {DEFAULT_TEMPLATE.replace('%', '%%')})")  # fmt: skip
    p.add_argument(
        "--no-import", action="store_true", help="only copy; do not import into the profile"
    )
    p.add_argument(
        "--workers", type=int, default=None, help="import worker processes (default: all cores)"
    )
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_ingest)
