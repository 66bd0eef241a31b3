"""The per-file import steps run in worker processes: imaging's one-read ingest plus XMP marks (sidecar,
else embedded; the camera's EXIF rating where XMP has none), and the technical checks with faces
(the second pass)."""

from __future__ import annotations

import signal
from dataclasses import dataclass

from aesthete_gui.imaging.checks import Analysis, analyse_path
from aesthete_gui.imaging.decode import DecodeError
from aesthete_gui.imaging.ingest import IngestResult, ingest_file
from aesthete_gui.imaging.xmp import XmpError, XmpMarks, read_sidecar, with_exif_rating
from aesthete_gui.imaging.xmp_embedded import read_embedded_marks
from aesthete_gui.process_guard import exit_with_parent


@dataclass
class FileOutcome:
    """What a worker sends back for one file (picklable)."""

    ingest: IngestResult
    xmp: XmpMarks | None = None
    xmp_problem: str | None = None


def process_file(
    path: str,
    cache_dir: str,
    with_features: bool,
    with_preview: bool = False,
    with_checks: bool = True,
) -> FileOutcome:
    """Hash, metadata, thumbnail(s) (+ features), checks and faces of one file and its sidecar marks; never raises.

    Any failure becomes the file's error (or, for the sidecar, a note): one bad file never stops
    an import. with_checks=False leaves out the checks and faces (the import benchmark's baseline).
    """
    try:
        ingest = ingest_file(path, cache_dir, with_preview=with_preview or with_features,
                             with_features=with_features, with_checks=with_checks)  # fmt: skip
    except Exception as error:
        return failed_outcome(path, error)
    outcome = FileOutcome(ingest=ingest)
    if outcome.ingest.ok:
        try:
            outcome.xmp = read_sidecar(path)
        except XmpError as error:
            outcome.xmp_problem = str(error)
        except Exception as error:
            outcome.xmp_problem = f"sidecar unreadable: {type(error).__name__}: {error}"
        if outcome.xmp is None and outcome.xmp_problem is None:
            outcome.xmp = _embedded_marks(path)
        if outcome.xmp_problem is None:
            meta = outcome.ingest.metadata
            outcome.xmp = with_exif_rating(outcome.xmp, meta.rating if meta is not None else None)
        if outcome.xmp is not None and outcome.xmp.unreadable:
            outcome.xmp_problem = "sidecar value unreadable, left as it is: " + "; ".join(outcome.xmp.unreadable)
    return outcome


@dataclass
class CheckOutcome:
    """The checks and faces of one file (the import's second pass), or why they could not be measured."""

    analysis: Analysis | None = None
    error: str | None = None


def check_file(path: str) -> CheckOutcome:
    """Faces and technical checks of one file, measured on their canonical decode; never raises."""
    try:
        return CheckOutcome(analysis=analyse_path(path))
    except DecodeError as error:
        return CheckOutcome(error=error.reason)
    except Exception as error:
        return CheckOutcome(error=f"unexpected error ({type(error).__name__}: {error})")


def _embedded_marks(path: str) -> XmpMarks | None:
    """Marks in the file's own XMP (in-camera ratings), used when it has no sidecar; None on any doubt."""
    try:
        return read_embedded_marks(path)
    except Exception:  # an unreadable embedded packet only means no marks from it
        return None


def failed_outcome(path: str, error: BaseException) -> FileOutcome:
    """The outcome of a file whose processing raised: an error row with the reason."""
    reason = f"unexpected error ({type(error).__name__}: {error})"
    return FileOutcome(ingest=IngestResult(path=path, error=reason, error_kind="internal"))


def ignore_interrupts() -> None:
    """Pool initializer: Ctrl-C goes to the importing process, which cancels; workers finish their file
    and end when that process dies."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    exit_with_parent()
