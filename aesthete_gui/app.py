"""Builds the QApplication with its qasync event loop and opens the main window."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from aesthete_gui.display_check import display_problem


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of `aesthete-gui` and `python -m aesthete_gui`."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    if "-h" in arguments or "--help" in arguments:  # help needs no display: argparse prints it and exits
        from aesthete_gui.qt.launch import build_parser

        build_parser().parse_args(arguments)
    problem, settings = display_problem(arguments, os.environ, sys.platform)
    if problem:
        print(problem, file=sys.stderr)
        return 2
    os.environ.update(settings)
    from aesthete_gui.qt.launch import run_app

    return run_app(arguments)


if __name__ == "__main__":
    raise SystemExit(main())
