"""`aesthete prefer`: record which of two images you prefer, or import choices from a CSV file."""

from __future__ import annotations

import argparse

from aesthete_gui.cli import UserError
from aesthete_gui.cli.common import open_cli_profile
from aesthete_gui.cli.taste import taste_errors
from aesthete_gui.engine.dimensions import DIMENSIONS


def _prefer(args: argparse.Namespace) -> int:
    from aesthete_gui.safe_text import terminal_text
    from aesthete_gui.services.choices_csv import ChoicesCsvError, import_choices
    from aesthete_gui.services.taste import record_choice

    profile = open_cli_profile(args)
    try:
        if args.from_csv:
            if args.a or args.b:
                raise UserError("give either two images or --from CHOICES.csv, not both")
            try:
                done = import_choices(profile, args.from_csv, keep_duplicates=args.keep_duplicates)
            except ChoicesCsvError as error:
                raise UserError(str(error)) from error
            print(terminal_text(done.describe(args.from_csv)))
            return 0
        if not (args.a and args.b and args.winner):
            raise UserError("prefer needs two images and --winner a|b|tie (or --from CHOICES.csv)")
        choice_id = record_choice(profile, args.a, args.b, args.winner, args.dimension)
        print(f"recorded choice {choice_id}: {args.winner} on {args.dimension}")
        return 0
    except taste_errors() as error:
        raise UserError(str(error)) from error
    finally:
        profile.close()


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the `prefer` command."""
    p = subparsers.add_parser("prefer", help="record which of two images you prefer (or import choices from CSV)")
    p.add_argument("a", nargs="?", help="first image (shown left), path or id")
    p.add_argument("b", nargs="?", help="second image (shown right), path or id")
    p.add_argument("--winner", choices=("a", "b", "tie"), help="which one you prefer")
    p.add_argument("--dimension", default="overall", choices=DIMENSIONS, help="what the choice is about (default overall)")
    p.add_argument("--from", dest="from_csv", metavar="CHOICES.csv", help="import rows a,b,winner[,dimension]; all or nothing")
    p.add_argument("--keep-duplicates", action="store_true", help="with --from: also import rows already imported from a CSV")
    p.set_defaults(func=_prefer)
