"""`aesthete score-profile`: score the profile's images with any registered scorer and store the scores."""

from __future__ import annotations

import argparse
import json
import sys

from aesthete_gui.cli import UserError
from aesthete_gui.cli.common import open_cli_profile
from aesthete_gui.cli.score import result_json, server_options, server_spec


def _score_profile(args: argparse.Namespace) -> int:
    from aesthete_gui.engine.scorers import ScorerId, ScorerIdError, ScorerKind
    from aesthete_gui.services.scorer_registry import ScorerNotFoundError, ScorerSources, score_with

    try:
        name = ScorerId.parse(args.scorer, bare=ScorerKind.STUDENT).name if args.scorer else ""
    except ScorerIdError as error:
        raise UserError(str(error)) from error
    sources = ScorerSources(vlm_models=(args.model,) if args.model else (), server=server_spec(args, name))
    profile = open_cli_profile(args)
    try:
        result = score_with(profile, args.scorer, args.image_id or None, args.preset or "", sources=sources)
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
    """Add the `score-profile` command."""
    profile_score = subparsers.add_parser("score-profile", help="score the profile's images with any registered scorer and store the scores")
    profile_score.add_argument("--scorer", default=None, help="scorer id (default: newest student, else builtin)")
    profile_score.add_argument("--image-id", type=int, action="append", help="score only this image (repeatable)")
    profile_score.add_argument("--preset", default="", help="rubric preset recorded with the scores")
    profile_score.add_argument("--model", default=None, help="model folder for a vlm-single-pass:<name> scorer")
    server_options(profile_score)
    profile_score.add_argument("--json", action="store_true", help="print JSON")
    profile_score.set_defaults(func=_score_profile)
