"""Starts the application: parses GUI options, builds QApplication + qasync loop, shows the window."""

from __future__ import annotations

import argparse
import asyncio

from PySide6.QtWidgets import QApplication, QLabel, QMainWindow


def run_app(argv: list[str]) -> int:
    """Run the GUI until the main window closes; returns the exit code."""
    parser = argparse.ArgumentParser(prog="aesthete-gui")
    parser.add_argument("--profile", metavar="PATH")
    parser.add_argument("--open", metavar="DIR")
    parser.add_argument("--screenshot", metavar="OUT.png")
    args = parser.parse_args(argv)
    import qasync

    app = QApplication.instance() or QApplication([])
    window = QMainWindow()
    window.setWindowTitle("Aesthete")
    window.setCentralWidget(QLabel("Aesthete"))
    window.resize(1280, 800)
    window.show()
    if args.screenshot:
        app.processEvents()
        window.grab().save(args.screenshot)
        return 0

    async def wait_closed() -> None:
        closed = asyncio.Event()
        app.lastWindowClosed.connect(closed.set)
        await closed.wait()

    qasync.run(wait_closed())
    return 0
