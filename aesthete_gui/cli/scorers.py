"""`aesthete scorers` and `aesthete score-profile`: the scorer registry from the command line.

The services return typed results keyed by image ids; the JSON shapes printed here live here.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from aesthete_gui.cli import UserError
from aesthete_gui.cli.common import open_cli_profile


def entry_json(entry: Any) -> dict[str, Any]:
    """The JSON shape of one registered scorer."""
    return {"id": entry.scorer_id, "kind": entry.kind.value, "label": entry.label,
            "runs_model": entry.runs_model, "can_score": entry.can_score}  # fmt: skip


def result_json(result: Any, paths: dict[int, str]) -> dict[str, Any]:
    """The JSON shape of one scoring pass: the scorer, then one row per image (id, path, scores)."""
    return {
        "scorer": result.scorer_id,
        "images": [{"id": i, "path": paths.get(i, ""), "scores": dict(s)} for i, s in sorted(result.scores.items())],
        "unreadable": [{"id": i, "path": paths.get(i, "")} for i in result.unreadable],
    }


def _list(args: argparse.Namespace) -> int:
    from aesthete_gui.services.scoring import registered_scorers

    profile = open_cli_profile(args)
    try:
        entries = registered_scorers(profile, [m for m in [args.model] if m])
    finally:
        profile.close()
    if args.json:
        print(json.dumps([entry_json(e) for e in entries]))
        return 0
    for entry in entries:
        note = "" if entry.can_score else "  (stored by a distillation run)"
        print(f"{entry.scorer_id:<32} {entry.label}{note}")
    return 0


def _score(args: argparse.Namespace) -> int:
    from aesthete_gui.engine.scorers import ScorerIdError
    from aesthete_gui.services.scoring import ScorerNotFoundError, score_with

    profile = open_cli_profile(args)
    try:
        result = score_with(profile, args.scorer, args.image_id or None, args.preset or "",
                            vlm_model=args.model)  # fmt: skip
        paths = {r.id: r.path for r in profile.catalog.images()}
    except (ScorerNotFoundError, ScorerIdError) as error:
        raise UserError(str(error)) from error
    finally:
        profile.close()
    if args.json:
        print(json.dumps(result_json(result, paths)))
        return 0
    print(f"scored {len(result.scores)} images with {result.scorer_id}", file=sys.stderr)
    for image_id, scores in sorted(result.scores.items()):
        print(paths.get(image_id, str(image_id)) + "\t" + "\t".join(f"{k}={v:.2f}" for k, v in scores.items()))
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the `scorers` and `score-profile` sub-commands."""
    listing = subparsers.add_parser("scorers", help="list the scorers this profile can use")
    listing.add_argument("--model", default=None, help="also list this local VLM (folder or hub id)")
    listing.add_argument("--json", action="store_true", help="print JSON")
    listing.set_defaults(func=_list)
    score = subparsers.add_parser("score-profile", help="score the profile's images with any registered scorer and store the scores")
    score.add_argument("--scorer", default=None, help="scorer id (default: newest student, else builtin)")
    score.add_argument("--image-id", type=int, action="append", help="score only this image (repeatable)")
    score.add_argument("--preset", default="", help="rubric preset recorded with the scores")
    score.add_argument("--model", default=None, help="model folder for a vlm-single-pass:<name> scorer")
    score.add_argument("--json", action="store_true", help="print JSON")
    score.set_defaults(func=_score)
