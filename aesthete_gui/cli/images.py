"""`aesthete images`: list the profile's images; `--json` adds the culling fields (a stable contract)."""

from __future__ import annotations

import argparse
import json
import math
from typing import TYPE_CHECKING, Any

from aesthete_gui.cli.common import (
    add_shoot_type_option,
    open_cli_profile,
    up_to_date,
    use_shoot_type,
)
from aesthete_gui.safe_text import terminal_text

if TYPE_CHECKING:
    from aesthete_gui.store import Profile


def _finite(value: Any) -> Any:
    """A number as JSON can carry it: not-measured values (NaN) become null."""
    return None if isinstance(value, float) and not math.isfinite(value) else value


def culling_fields(profile: Profile) -> dict[int, dict[str, Any]]:
    """Per image id: `scores` (the active scorer's, {} when none), `suggested_reject`, `checks`, `faces`."""
    from aesthete_gui.services.scoring import default_scorer

    scores = profile.scores.of_scorer(default_scorer(profile))
    # verdicts of an older checks version are listed as none until a rescan measures again
    suggested = profile.checks.suggested_rejects()
    stored = profile.checks.all()
    out: dict[int, dict[str, Any]] = {}
    for image_id in profile.catalog.image_ids():
        checks, faces = stored.get(image_id, ([], []))
        out[image_id] = {
            "scores": {d: round(v, 4) for d, v in scores.get(image_id, {}).items() if v is not None},
            "suggested_reject": image_id in suggested,
            "checks": [{"name": c.get("name"), "value": _finite(c.get("value")), "verdict": c.get("verdict"),
                        "reason": c.get("reason")} for c in checks],
            "faces": [{"box": f.get("box"), "eyes": f.get("eyes")} for f in faces],
        }
    return out


def _image_row(image: Any, marks: dict[int, Any]) -> dict[str, Any]:
    mark = marks.get(image.id)
    missing = image.status == "missing"
    return {
        "id": image.id,
        "path": image.path,
        "status": "error" if missing else image.status,
        "error": image.error,
        "missing": missing,
        "width": image.width,
        "height": image.height,
        "format": image.format,
        "capture_time": image.capture_time,
        "camera": image.camera,
        "burst": image.burst_id,
        "stars": mark.stars if mark else 0,
        "flag": mark.flag if mark else None,
        "label": mark.label if mark else None,
    }


def cmd_images(args: argparse.Namespace) -> int:
    """List the images in the profile."""
    profile = open_cli_profile(args)
    try:
        up_to_date(profile, judge=args.shoot_type is None)  # a shoot type given: judged once, under it
        use_shoot_type(profile, args.shoot_type)
        marks = profile.marks.all()
        status = None if args.status == "all" else args.status
        rows = [_image_row(i, marks) for i in profile.catalog.images(status=status)]
        if args.json:
            culling = culling_fields(profile)
            for row in rows:
                row.update(culling[row["id"]])
        else:
            from aesthete_gui.services.verdicts import suggested_reject_reasons

            reasons = suggested_reject_reasons(profile)
    finally:
        profile.close()
    if args.json:
        print(json.dumps(rows, indent=2, ensure_ascii=False))
        return 0
    for row in rows:
        detail = row["error"] if row["status"] != "ok" else f"{row['width']}x{row['height']}"
        stars = "*" * row["stars"]
        print(f"{row['id']:>6}  {row['status']:<5}  {stars:<5}  {_FLAG_SIGNS.get(row['flag'], ' ')}  "
              f"{terminal_text(row['path'])}  ({terminal_text(detail)}){_suggestion(reasons.get(row['id']))}")
    if reasons:
        print(f"{len(reasons)} suggested rejects (✖): `aesthete recheck --accept` flags them, `aesthete mark` one by one")
    return 0


_FLAG_SIGNS = {"pick": "P", "reject": "X"}


def _suggestion(reasons: list[str] | None) -> str:
    """'  ✖ reason; reason' for a suggested reject the user has not flagged, else ''."""
    return "" if reasons is None else "  ✖ " + terminal_text("; ".join(reasons))


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the `images` command."""
    p = subparsers.add_parser("images", help="list the images in the profile")
    p.add_argument("--json", action="store_true", help="print a JSON list")
    add_shoot_type_option(p)
    p.add_argument("--status", choices=["all", "ok", "error", "missing"], default="all",
                   help="only images with this status")  # fmt: skip
    p.set_defaults(func=cmd_images)
