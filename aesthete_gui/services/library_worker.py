"""The per-file import step run in worker processes: imaging's one-read ingest plus the XMP sidecar."""

from __future__ import annotations

import signal
from dataclasses import dataclass

from aesthete_gui.imaging.ingest import IngestResult, ingest_file
from aesthete_gui.imaging.xmp import XmpError, XmpMarks, read_sidecar


@dataclass
class FileOutcome:
    """What a worker sends back for one file (picklable)."""

    ingest: IngestResult
    xmp: XmpMarks | None = None
    xmp_problem: str | None = None


def process_file(
    path: str, cache_dir: str, with_features: bool, with_preview: bool = False
) -> FileOutcome:
    """Hash, metadata, thumbnail(s) (+ features) of one file and its sidecar marks; never raises."""
    ingest = ingest_file(path, cache_dir, with_preview=with_preview or with_features,
                         with_features=with_features)  # fmt: skip
    outcome = FileOutcome(ingest=ingest)
    if outcome.ingest.ok:
        try:
            outcome.xmp = read_sidecar(path)
        except (XmpError, OSError) as error:
            outcome.xmp_problem = f"XMP sidecar ignored: {error}"
    return outcome


def ignore_interrupts() -> None:
    """Pool initializer: Ctrl-C goes to the importing process, which cancels; workers finish their file."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
