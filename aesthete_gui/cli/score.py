"""`aesthete score`: score images with any scorer, through one route.

`score` scores the named images (the whole library when none is named) with any scorer: the
built-in rules, a student, a taste adapter, a local vision-language model (`--model DIR_OR_ID`) or
one on OpenAI-compatible servers (`--endpoint URL --model NAME`). Images are named the way every
command names them (an id, a stored path, or a path relative to the current folder); a model
scorer also reads files that are not in the library when nothing is to be stored. All of them go
through services/scorer_registry.score_with; the JSON shapes printed here live here.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from aesthete_gui.cli import UserError
from aesthete_gui.cli.common import library_image_ids, open_cli_profile, write_progress
from aesthete_gui.engine.dimensions import DIMENSIONS


def result_json(result: Any, paths: dict[int, str]) -> dict[str, Any]:
    """The JSON shape of one scoring pass: the scorer, then one row per image (id, path, scores)."""
    return {
        "scorer": result.scorer_id,
        "images": [{"id": i, "path": paths.get(i, ""), "scores": dict(s)} for i, s in sorted(result.scores.items())],
        "unreadable": [{"id": i, "path": paths.get(i, "")} for i in result.unreadable],
    }


def server_spec(args: argparse.Namespace, model: str) -> Any:
    """The JudgeSpec of the servers named by --endpoint, or None."""
    from aesthete_gui.cli.judge import endpoint_option
    from aesthete_gui.services.compare import CONCURRENCY_ENV, JudgeSpec

    endpoint = endpoint_option(args)
    if endpoint is None:
        return None
    concurrency = getattr(args, "concurrency", None)
    if concurrency is None:
        concurrency = int(os.environ[CONCURRENCY_ENV]) if os.environ.get(CONCURRENCY_ENV, "").isdigit() else 8
    if concurrency < 1:
        raise UserError("--concurrency must be at least 1")
    return JudgeSpec(model=model, endpoint=endpoint, api_key_env=getattr(args, "api_key_env", None),
                     preset=args.preset or "photography", concurrency=concurrency,
                     timeout_s=getattr(args, "timeout", 120.0), score_style=getattr(args, "style", "continue"))  # fmt: skip


def _choice(args: argparse.Namespace) -> tuple[str | None, Any]:
    """(scorer id or None for the default, ScorerSources) from --model / --endpoint."""
    from aesthete_gui.engine.scorers import ScorerId, ScorerIdError, ScorerKind
    from aesthete_gui.services.scorer_registry import ScorerSources, server_scorer_id, vlm_scorer_id

    model = args.model
    server = server_spec(args, model or "")
    if server is not None:
        if not model:
            raise UserError("--endpoint needs --model NAME (the model name the server serves)")
        return server_scorer_id(model), ScorerSources(server=server)
    if not model:
        return None, ScorerSources()
    try:
        parsed = ScorerId.parse(model)
    except ScorerIdError:
        parsed = None
    if parsed is not None and parsed.kind is not ScorerKind.SERVER:
        return str(parsed), ScorerSources(vlm_models=(parsed.name,) if parsed.kind is ScorerKind.VLM else ())
    if parsed is not None:
        raise UserError(f"{model} scores on a server: give its URL with --endpoint")
    if args.batch_size < 1:
        raise UserError("--batch-size must be at least 1")
    options = {"batch_size": args.batch_size, "load_options": _load_options(args)}
    return vlm_scorer_id(model), ScorerSources(vlm_models=(model,), vlm_options=options)


def _load_options(args: argparse.Namespace) -> Any:
    from aesthete_gui.services.compare import LoadOptions

    return LoadOptions(allow_pickle=args.allow_pickle, trust_remote_code=args.trust_remote_code,
                       download=args.download, revision=args.revision)  # fmt: skip


def _progress(args: argparse.Namespace) -> Any:
    if not sys.stderr.isatty():
        return None
    return lambda step: write_progress(sys.stderr, f"{step.message} {step.done}/{step.total or '?'}")


def _download_first(args: argparse.Namespace, sources: Any) -> None:
    """With --download, fetch a hub model before scoring, showing the download's progress."""
    if not args.download or not sources.vlm_models:
        return
    from aesthete_gui.cli.judge import download_progress
    from aesthete_gui.services.models import download_model

    download_model(sources.vlm_models[0], download_progress, revision=args.revision, allow_pickle=args.allow_pickle)
    print(file=sys.stderr)


def run_score(args: argparse.Namespace) -> int:
    """Score the named images (or the library) with any scorer; store with --save."""
    from aesthete_gui.engine.scorers import ScorerId, ScorerKind
    from aesthete_gui.services.scorer_registry import score_files, score_with

    scorer, sources = _choice(args)
    file_scorer = scorer if scorer and ScorerId.parse(scorer).kind in (ScorerKind.VLM, ScorerKind.SERVER) else None
    _download_first(args, sources)
    progress = _progress(args)
    if args.images and file_scorer is not None and not args.save:
        paths = _existing(args.images)
        result, per_path = score_files(file_scorer, paths, args.preset, progress, sources=sources)
        rows = list(zip(paths, per_path, strict=True))
    else:
        profile = open_cli_profile(args)
        try:
            if not args.images and profile.catalog.image_count(status="ok") == 0:
                raise UserError("the library has no images to score: import a folder first (or name image files)")
            ids = library_image_ids(profile, args.images) if args.images else None
            result = score_with(profile, scorer, ids, args.preset, progress, sources=sources, save=args.save)
            paths_by_id = {r.id: r.path for r in profile.catalog.images()}
        finally:
            profile.close()
        order = ids if ids is not None else sorted({*result.scores, *result.unreadable})
        rows = [(paths_by_id.get(i, str(i)), dict(result.scores.get(i, {}))) for i in dict.fromkeys(order)]
    if progress is not None:
        print(file=sys.stderr)
    _report(args, result, rows)
    return 0


def _existing(paths: list[str]) -> list[str]:
    missing = [p for p in paths if not Path(p).is_file()]
    if missing:
        raise UserError(f"no such image file: {', '.join(missing)}")
    return [os.fspath(Path(p)) for p in paths]


def _report(args: argparse.Namespace, result: Any, rows: list[tuple[str, dict[str, float]]]) -> None:
    """Print the scores (table or JSON) and a summary line on stderr; no score at all is an error."""
    scored = sum(1 for _, s in rows if s)
    problems = []
    if result.unreadable_replies:
        problems.append(f"{result.unreadable_replies} replies had no readable score digit (no score taken from them)")
    if result.failed_requests:
        reasons = "; ".join(result.failure_reasons)
        problems.append(f"{result.failed_requests} requests got no reply ({reasons})")
    unreadable = sum(1 for _, s in rows if not s)
    if rows and scored == 0 and (result.failed_requests or result.unreadable_replies):
        raise UserError(f"no image could be scored with {result.scorer_id}: " + "; ".join(problems))
    if args.json:
        print(json.dumps([{"path": p, "scores": s or None} for p, s in rows]))
    else:
        print("image\t" + "\t".join(DIMENSIONS))
        for path, scores in rows:
            cells = [f"{scores[k]:.2f}" if k in scores else "-" for k in DIMENSIONS] if scores else ["unreadable"] * len(DIMENSIONS)
            print(path + "\t" + "\t".join(cells))
    stored = " and stored them" if args.save else " (not stored: add --save to keep them)"
    summary = f"scored {scored} images with {result.scorer_id}{stored}"
    if unreadable:
        summary += f"; {unreadable} without a score"
    print("; ".join([summary, *problems]), file=sys.stderr)


def server_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--endpoint", metavar="URL", action="append",
                        help="OpenAI-compatible server base URL, e.g. http://gpu-host:8000/v1; repeat it or "
                             "separate URLs with commas to share the images between servers")  # fmt: skip
    parser.add_argument("--api-key-env", metavar="VAR", default=None,
                        help="environment variable holding the server's API key (default AESTHETE_API_KEY; "
                             "the keyring is tried when it is unset); keys are never stored")  # fmt: skip
    parser.add_argument("--concurrency", type=int, default=None,
                        help="requests in flight to the servers (default $AESTHETE_REMOTE_CONCURRENCY or 8)")
    parser.add_argument("--timeout", type=float, default=120.0,
                        help="overall deadline in seconds for each server request (default 120)")


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the `score` command."""
    score = subparsers.add_parser(
        "score", help="score images 1-5 on five dimensions with any scorer (the whole library when none is named)"
    )
    score.add_argument("images", nargs="*", metavar="IMG",
                       help="images to score: ids, paths in the library, or (with a model and without --save) "
                            "any image files; default the whole library")  # fmt: skip
    score.add_argument("--model", default=None, metavar="SCORER",
                       help="builtin, student:NAME, taste:NAME, a local model folder or hub id (read in one "
                            "pass), or with --endpoint the server's model name (default: the newest student, "
                            "else builtin)")  # fmt: skip
    server_options(score)
    score.add_argument("--style", choices=["continue", "generate"], default="continue",
                       help="how a server's scores are read: continue the answer's opening once per dimension "
                            "(default: the same scores as a local single pass), or read the digits of one "
                            "generated answer per image (for servers that cannot continue a message)")  # fmt: skip
    score.add_argument("--preset", default="", help="rubric preset: photography, painting, illustration, rendering")
    score.add_argument("--batch-size", type=int, default=8, help="images per forward pass of a local model (default 8)")
    score.add_argument("--allow-pickle", action="store_true",
                       help="allow pickle checkpoints (.bin/.pth), which can run code: only for sources you trust")
    score.add_argument("--trust-remote-code", action="store_true",
                       help="allow a model's own Python code (auto_map): only for sources you trust")
    score.add_argument("--download", action="store_true", help="download a hub id that is not in the local cache")
    score.add_argument("--revision", default=None, help="pin a hub revision (commit, tag or branch)")
    score.add_argument("--json", action="store_true", help='print JSON: [{"path", "scores": {dimension: score}}]')
    score.add_argument("--save", action="store_true", help="store the scores in the profile (see --profile)")
    score.set_defaults(func=run_score)
