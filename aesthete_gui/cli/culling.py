"""Culling fields of `aesthete images --json` and `aesthete score --model builtin` (a stable contract)."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from aesthete_gui.cli.common import UserError, open_cli_profile
from aesthete_gui.engine.dimensions import DIMENSIONS

if TYPE_CHECKING:
    from aesthete_gui.store import Profile


def culling_fields(profile: Profile) -> dict[int, dict[str, Any]]:
    """Per image id: `scores` (the active scorer's, {} when none), `suggested_reject`, `checks`, `faces`."""
    from aesthete_gui.services.scoring import default_scorer

    scores = profile.scores(default_scorer(profile))
    suggested = profile.suggested_rejects()
    stored = profile.all_checks()
    out: dict[int, dict[str, Any]] = {}
    for image_id in profile.image_ids():
        checks, faces = stored.get(image_id, ([], []))
        out[image_id] = {
            "scores": {d: round(v, 4) for d, v in scores.get(image_id, {}).items() if v is not None},
            "suggested_reject": image_id in suggested,
            "checks": [{k: c.get(k) for k in ("name", "value", "verdict", "reason")} for c in checks],
            "faces": [{"box": f.get("box"), "eyes": f.get("eyes")} for f in faces],
        }
    return out


def run_builtin_score(args: argparse.Namespace) -> int:
    """Score the library (or the given images, which must be in it) with the built-in scorer."""
    from aesthete_gui.services.scoring import BUILTIN, score_library

    profile = open_cli_profile(args)
    try:
        image_ids = None
        if args.images:
            records = [profile.image_by_path(str(path)) for path in args.images]
            unknown = [str(p) for p, r in zip(args.images, records, strict=True) if r is None]
            if unknown:
                raise UserError(f"not in the library (run `aesthete import` first): {', '.join(unknown)}")
            image_ids = [r.id for r in records if r is not None]
        scorer_id, scores = score_library(profile, BUILTIN, image_ids=image_ids)
        paths = {r.id: r.path for r in profile.images()}
    finally:
        profile.close()
    if args.json:
        rows = [{"path": paths[i], "scores": s} for i, s in scores.items()]
        print(json.dumps(rows, ensure_ascii=False))
        return 0
    print("image\t" + "\t".join(DIMENSIONS))
    for image_id, values in scores.items():
        print(paths[image_id] + "\t" + "\t".join(f"{values[d]:.2f}" for d in DIMENSIONS))
    print(f"{len(scores)} images scored with {scorer_id}")
    return 0
