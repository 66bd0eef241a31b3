"""Technical checks as the library stores and reports them (rows for the profile, JSON for the CLI)."""

from __future__ import annotations

from typing import Any

from aesthete_gui.imaging.checks import Analysis, checks_version, worst_verdict
from aesthete_gui.store.checks import CheckRow

__all__ = ["check_row", "checks_version", "image_culling"]


def check_row(image_id: int, analysis: Analysis) -> CheckRow:
    """One image's checks and faces as a profile row (image_id, version, checks, faces, worst verdict)."""
    checks, faces = analysis.checks, analysis.faces
    return image_id, analysis.version, [c.as_dict() for c in checks], [f.as_dict() for f in faces], worst_verdict(checks)


def image_culling(stored: tuple[list[dict[str, Any]], list[dict[str, Any]]] | None, suggested: bool) -> dict[str, Any]:
    """The CLI contract's culling fields of one image: suggested_reject, checks, faces."""
    checks, faces = stored if stored is not None else ([], [])
    return {"suggested_reject": suggested, "checks": checks, "faces": faces}
