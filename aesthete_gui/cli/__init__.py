"""`aesthete` command line: each module in this package registers its own sub-commands.

A command module defines `register(subparsers) -> None`, adding parsers whose `func` default takes
the parsed arguments and returns an exit code. The global `--profile PATH` option (or the
AESTHETE_PROFILE variable) selects the profile database; commands read it as `args.profile`.

Errors: an `AestheteError` (a user mistake, a bad profile, an unreadable model file, a judge server
that cannot be reached...) is printed as one line and exits 2; `--debug` adds the traceback. Any
other exception is a bug and keeps its traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sqlite3
import sys
import traceback
from collections.abc import Sequence

from aesthete_gui import __version__
from aesthete_gui.errors import AestheteError

EXIT_USER_ERROR = 2
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, what a shell reports for a program stopped by `| head`


class UserError(AestheteError):
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
    parser.add_argument(
        "--debug", action="store_true", help="on an error, also print the full traceback"
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(subparsers)
    _accept_globals_after_the_command(parser)
    return parser


def _accept_globals_after_the_command(parser: argparse.ArgumentParser) -> None:
    """Let `aesthete images --profile P --debug` work as `aesthete --profile P --debug images` does
    (a trial typed the profile after the command and got "unrecognized arguments")."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                sub.add_argument("--profile", metavar="PATH", default=argparse.SUPPRESS,
                                 help="profile database to use (as before the command)")  # fmt: skip
                sub.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                                 help="on an error, also print the full traceback")  # fmt: skip
                _accept_globals_after_the_command(sub)


def one_line(text: str) -> str:
    """`text` on one line with control characters escaped (a message never moves the terminal)."""
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in text)


def known_error(error: BaseException, profile: str | None) -> AestheteError | None:
    """The user-facing error `error` stands for, or None when it is a bug."""
    from aesthete_gui.settings import ProfilePathTextError

    if isinstance(error, AestheteError):
        return error
    if isinstance(error, ProfilePathTextError):
        return AestheteError(str(error))
    if isinstance(error, sqlite3.Error):
        from aesthete_gui.settings import resolve_profile_path
        from aesthete_gui.store.errors import profile_error

        return profile_error(error, resolve_profile_path(profile))
    if isinstance(error, OSError) and error.strerror:
        where = f": {error.filename}" if error.filename else ""
        return AestheteError(f"{error.strerror}{where}")
    return None


def _quiet_stdout() -> None:
    """After a closed pipe: point stdout at /dev/null so the final flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout is no real file (tests capture it)
        pass


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `aesthete` console script; everything it prints is escaped on the way out."""
    from aesthete_gui.cli.common import terminal_safe_output

    try:
        with terminal_safe_output():
            return _run(argv)
    except KeyboardInterrupt:  # before a command's own handling (while the parser is built): no traceback
        print("aesthete: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def _run(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help()
        return 0
    try:
        code = int(func(args) or 0)
        sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's last flush
        return code
    except BrokenPipeError:
        _quiet_stdout()  # `aesthete images | head`: the reader has all it wanted
        return EXIT_BROKEN_PIPE
    except KeyboardInterrupt:
        print("aesthete: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as error:
        known = known_error(error, args.profile)
        if known is None:
            raise
        if args.debug:
            traceback.print_exc()
        print(f"aesthete: error: {one_line(str(known))}", file=sys.stderr)
        return EXIT_USER_ERROR


if __name__ == "__main__":
    raise SystemExit(main())
