"""`aesthete rank-images`: the library ranked best first by your active scorer."""

from __future__ import annotations

import argparse
import json

from aesthete_gui.cli import UserError
from aesthete_gui.cli.common import open_cli_profile
from aesthete_gui.cli.taste import progress_printer, taste_errors
from aesthete_gui.cli.taste_json import (
    image_paths,
    ranking_json,
)
from aesthete_gui.engine.dimensions import DIMENSIONS


def _rank_images(args: argparse.Namespace) -> int:
    from aesthete_gui.safe_text import terminal_text
    from aesthete_gui.services.taste import rank_images

    profile = open_cli_profile(args)
    bar = progress_printer(args.json)
    try:
        ranking = rank_images(profile, args.adapter, args.dimension, progress=bar)
        paths = image_paths(profile)
    except taste_errors() as error:
        raise UserError(str(error)) from error
    finally:
        bar.close()
        profile.close()
    ranked = ranking_json(ranking, paths)
    if args.limit:
        ranked = ranked[: args.limit]
    if args.json:
        print(json.dumps(ranked, indent=2))
    else:
        for rank, item in enumerate(ranked, start=1):
            print(f"{rank:5d}  {item['score']:.3f}  {terminal_text(item['path'])}")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the `rank-images` command."""
    r = subparsers.add_parser("rank-images", help="the library ranked best first by your active scorer")
    r.add_argument("--adapter", default=None, help="rank with this adapter instead of the active one")
    r.add_argument("--dimension", default="overall", choices=DIMENSIONS, help="dimension to rank by")
    r.add_argument("--limit", type=int, default=0, help="print only the first N")
    r.add_argument("--json", action="store_true", help="print a JSON list of {path, score, ...}")
    r.set_defaults(func=_rank_images)
