"""`aesthete distill`: turn a judge into calibrated pseudo-scores and a fast student scorer."""

from __future__ import annotations

import argparse
import json

from aesthete_gui.cli import UserError
from aesthete_gui.cli.common import open_cli_profile
from aesthete_gui.cli.taste import progress_printer
from aesthete_gui.cli.taste_json import (
    distill_json,
    image_paths,
)
from aesthete_gui.jobs import CancelToken


def _distill(args: argparse.Namespace) -> int:
    from aesthete_gui.services.distill import (
        DistillError,
        DistillOptions,
        distill_profile,
        make_judge,
    )

    if bool(args.judge) == bool(args.endpoint):
        raise UserError("give either --judge MODEL_DIR (a local model) or --endpoint URL (with --model)")
    profile = open_cli_profile(args)
    token = CancelToken()
    bar = progress_printer(args.json)
    try:
        judge = make_judge(args.judge, args.endpoint, args.model, args.preset, args.api_key_env, args.max_new_tokens)
        options = DistillOptions(pool=args.pool, refs=args.refs, adaptive=args.adaptive, seed=args.seed, student=None if args.no_student else args.student, preset=args.preset)
        distilled = distill_profile(profile, judge, options, progress=bar, cancel=token)
        summary = distill_json(distilled, image_paths(profile))
    except DistillError as error:
        raise UserError(str(error)) from error
    finally:
        bar.close()  # the error or the results start on a line of their own
        profile.close()
    if args.json:
        print(json.dumps(summary, indent=2, default=str))
    else:
        for key, value in summary.items():
            print(f"{key}: {value}")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the `distill` command."""
    d = subparsers.add_parser("distill", help="turn a judge into calibrated pseudo-scores and a fast student scorer")
    d.add_argument("--judge", default=None, help="local vision-language model folder")
    d.add_argument("--endpoint", default=None, help="OpenAI-compatible endpoint URL (instead of --judge)")
    d.add_argument("--model", default=None, help="model name at the endpoint")
    d.add_argument(
        "--api-key-env", default=None,
        help="environment variable holding the endpoint's key (default AESTHETE_API_KEY, else the system keyring)",
    )  # fmt: skip
    d.add_argument("--preset", default="photography", help="rubric preset (default photography)")
    d.add_argument("--max-new-tokens", type=int, default=None, help="cap on generated tokens per judge call")
    d.add_argument("--pool", type=int, default=50, help="reference pool size N (default 50)")
    d.add_argument("--refs", type=int, default=10, help="references per other image K (default 10)")
    d.add_argument("--adaptive", action="store_true", help="pick each next reference near the current estimate")
    d.add_argument("--seed", type=int, default=0, help="random seed of the pool and references")
    d.add_argument("--student", default="student", help="name of the fast student to train (default student)")
    d.add_argument("--no-student", action="store_true", help="only compute and store the pseudo-scores")
    d.add_argument("--json", action="store_true", help="print the summary as JSON")
    d.set_defaults(func=_distill)
