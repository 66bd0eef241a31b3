"""File ▸ Ingest from card…: ask for the card and the destination, then copy, verify and import as one job."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from aesthete_gui.qt.file_dialogs import choose_folder
from aesthete_gui.services.card_ingest import IngestSummary, ingest_and_import

if TYPE_CHECKING:
    from aesthete_gui.qt.main_window import MainWindow
    from aesthete_gui.qt.task_runner import JobHandle


def describe_ingest(summary: IngestSummary) -> str:
    """One status-bar line about a finished ingest: copied, already there, imported, what stayed on the card."""
    copied, skipped = summary.copied, summary.skipped
    imported = summary.imported.imported if summary.imported is not None else 0
    prefix = "Ingest cancelled" if summary.cancelled else "Ingest done"
    extra = f", {summary.completed} completed" if summary.completed else ""
    problems = len(summary.problems)
    extra += f", {problems} could not be copied" if problems else ""
    if summary.not_copied:
        extra += "; not copied: " + ", ".join(f"{n} {kind}" for kind, n in sorted(summary.not_copied.items()))
    return f"{prefix}: {copied} copied and verified, {skipped} already there (same bytes), {imported} imported{extra}"


def start_ingest(
    window: MainWindow, source: Path, destination: Path, backup: Path | None = None
) -> JobHandle:
    """Run the ingest (copy, verify, import) in the background; its line goes to the status bar."""
    context = window.context
    context.set_setting("ingest_destination", str(destination))
    return context.runner.submit(
        f"Ingest {source.name or source}",
        ingest_and_import,
        context.profile,
        str(source),
        str(destination),
        backup=str(backup) if backup else None,
        cache_dir=context.cache_dir,
        on_done=lambda summary: window.show_message(describe_ingest(summary)),
        on_error=lambda error: window.show_message(f"Ingest stopped: {error}"),
    )


def ingest_from_card(window: MainWindow) -> JobHandle | None:
    """Ask for the card and the destination folder, then start the ingest."""
    source = choose_folder(window, "Ingest from card: choose the card")
    if not source:
        return None
    remembered = str(window.context.settings.get("ingest_destination") or "")
    destination = choose_folder(window, "Copy the photographs into…", remembered)
    if not destination:
        return None
    return start_ingest(window, Path(source), Path(destination))
