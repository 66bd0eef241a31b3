"""`aesthete export`: marks and scores as CSV, JSON or XMP sidecars."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from aesthete_gui.cli import UserError
from aesthete_gui.cli.common import open_cli_profile, up_to_date
from aesthete_gui.safe_text import terminal_text
from aesthete_gui.services.verified_copy import write_problem


def cmd_export(args: argparse.Namespace) -> int:
    """Export the library as CSV, JSON, or XMP sidecars."""
    from aesthete_gui.services.library import export

    profile = open_cli_profile(args)
    try:
        up_to_date(profile)
        result = export(profile, args.format, args.output, naming=args.xmp_naming)
    except OSError as error:
        folder = Path(args.output).parent if args.output else Path.cwd()
        raise UserError(f"cannot write the export: {terminal_text(write_problem(error, folder))}") from error
    finally:
        profile.close()
    if result.text is not None:
        # data, not messages: into a file or a pipe it goes as it is (a path with a carriage return was
        # written as the text "\x0d", a path no program can open); a terminal still gets it escaped
        target = sys.stdout if sys.stdout.isatty() else getattr(sys.stdout, "unfiltered", sys.stdout)
        target.write(result.text)
    elif args.format == "xmp":
        print(f"{result.count} sidecars written")
    else:
        print(f"{result.count} images exported to {terminal_text(result.destination)}", file=sys.stderr)
    for path, reason in result.problems:
        print(f"  {terminal_text(path)}: {terminal_text(reason)}", file=sys.stderr)
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the `export` command."""
    p = subparsers.add_parser("export", help="export marks and scores as CSV, JSON or XMP sidecars")
    p.add_argument("--format", choices=["csv", "json", "xmp"], required=True, help="export format")
    p.add_argument("-o", "--output", metavar="PATH", help="file to write (csv/json; default: stdout)")
    p.add_argument("--xmp-naming", choices=["auto", "full", "stem"], default="auto",
                   help="new sidecar names for --format xmp")  # fmt: skip
    p.set_defaults(func=cmd_export)
