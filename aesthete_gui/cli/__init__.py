"""`aesthete` command line: each module in this package registers its own sub-commands.

A command module defines `register(subparsers) -> None`, adding parsers whose `func` default takes
the parsed arguments and returns an exit code. The global `--profile PATH` option (or the
AESTHETE_PROFILE variable) selects the profile database; commands read it as `args.profile`.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence

from aesthete_gui import __version__


class UserError(Exception):
    """A problem the user can fix (bad input, missing file): printed without a traceback, exit 2."""


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser with every command module's sub-commands."""
    parser = argparse.ArgumentParser(
        prog="aesthete",
        description="Aesthete: score, compare and rank images; learn your own taste.",
    )
    parser.add_argument("--version", action="version", version=f"aesthete {__version__}")
    parser.add_argument(
        "--profile",
        metavar="PATH",
        default=None,
        help="profile database to use (default: $AESTHETE_PROFILE, else the per-user data folder)",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `aesthete` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help()
        return 0
    try:
        return int(func(args) or 0)
    except UserError as error:
        print(f"aesthete: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("aesthete: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
