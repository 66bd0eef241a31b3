"""Builds the QApplication with its qasync event loop and opens the main window."""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of `aesthete-gui` and `python -m aesthete_gui`."""
    from aesthete_gui.qt.launch import run_app

    return run_app(list(sys.argv[1:] if argv is None else argv))


if __name__ == "__main__":
    raise SystemExit(main())
