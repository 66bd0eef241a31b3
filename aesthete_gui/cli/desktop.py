"""`aesthete desktop install | uninstall`: the menu entry, icon and folder association for this user."""

from __future__ import annotations

import argparse
import shlex

from aesthete_gui.desktop_entry import DesktopPlaces, describe, gui_command, install, uninstall


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the `desktop` command."""
    parser = subparsers.add_parser(
        "desktop",
        help="add Aesthete to (or remove it from) the desktop menu and 'Open folder with' for this user",
    )
    parser.add_argument("action", choices=("install", "uninstall"))
    parser.add_argument(
        "--exec",
        dest="exec_command",
        metavar="COMMAND",
        help="command the menu entry starts (default: this installation's aesthete-gui)",
    )
    parser.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    places = DesktopPlaces.from_environment()
    if args.action == "uninstall":
        print(describe(uninstall(places)))
        return 0
    command = shlex.split(args.exec_command) if args.exec_command else gui_command()
    print(describe(install(places, command)))
    print(f"menu entry starts: {shlex.join(command)}")
    return 0
