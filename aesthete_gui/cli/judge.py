"""`aesthete judge pair|set`: ask a judge from the command line.

A judge is a local model (`--model DIR_OR_ID`) or an OpenAI-compatible server (`--endpoint URL
--model NAME`; several URLs, repeated or comma-separated, share the work). Exit status 0 whenever
the judge answered, parsed or not; a judge that could not be loaded or reached is a user error
(exit 2) with a message that says what to do. `aesthete score` lives in cli/score.py.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from aesthete_gui.cli import UserError
from aesthete_gui.cli.common import saved_profile, write_progress
from aesthete_gui.engine.dimensions import DIMENSIONS


def _judge_options(parser: argparse.ArgumentParser, *, local_only: bool = False) -> None:
    parser.add_argument(
        "--model",
        required=True,
        metavar="DIR_OR_ID",
        help="local model folder or hub id (with --endpoint: the server's model name)",
    )
    if not local_only:
        parser.add_argument(
            "--endpoint",
            metavar="URL",
            action="append",
            help="OpenAI-compatible server base URL, e.g. http://localhost:8000/v1 (repeat it, or "
            "separate URLs with commas, to share the work between servers)",
        )
        parser.add_argument(
            "--api-key-env",
            metavar="VAR",
            default=None,
            help="environment variable holding the server's API key (default AESTHETE_API_KEY; "
            "the keyring is tried when it is unset); keys are never stored",
        )
        parser.add_argument(
            "--timeout", type=float, default=120.0, help="overall deadline in seconds for each server request, reply included (default 120)"
        )
        parser.add_argument(
            "--concurrency",
            type=int,
            default=None,
            help="requests in flight to the server (default $AESTHETE_REMOTE_CONCURRENCY or 4)",
        )
    parser.add_argument(
        "--preset",
        default="photography",
        help="rubric preset: photography, painting, illustration, rendering (default photography)",
    )
    parser.add_argument(
        "--allow-pickle",
        action="store_true",
        help="allow pickle checkpoints (.bin/.pth), which can run code: only for sources you trust",
    )
    parser.add_argument(
        "--trust-remote-code",
        action="store_true",
        help="allow a model's own Python code (auto_map): only for sources you trust",
    )
    parser.add_argument(
        "--download", action="store_true", help="download a hub id that is not in the local cache"
    )
    parser.add_argument("--revision", default=None, help="pin a hub revision (commit, tag or branch)")
    parser.add_argument(
        "--max-new-tokens",
        type=int,
        default=None,
        help="cap on generated tokens per call (default: the protocol's own limit)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument(
        "--save", action="store_true", help="store the judgment in the profile (see --profile)"
    )


def _existing(paths: list[str]) -> list[str]:
    missing = [p for p in paths if not Path(p).is_file()]
    if missing:
        raise UserError(f"no such image file: {', '.join(missing)}")
    return [os.fspath(Path(p)) for p in paths]


def _load_options(args: argparse.Namespace):
    """The weight-loading permissions and requests given on the command line."""
    from aesthete_gui.ml.loading import LoadOptions

    return LoadOptions(
        allow_pickle=args.allow_pickle,
        trust_remote_code=args.trust_remote_code,
        download=args.download,
        revision=args.revision,
    )


def _spec(args: argparse.Namespace, **extra: Any):
    from aesthete_gui.services.compare import JudgeSpec

    if args.max_new_tokens is not None and args.max_new_tokens < 1:
        raise UserError("--max-new-tokens must be at least 1")
    concurrency = _concurrency(args)
    spec = JudgeSpec(
        model=args.model,
        endpoint=endpoint_option(args),
        api_key_env=getattr(args, "api_key_env", None),
        preset=args.preset,
        max_new_tokens=args.max_new_tokens,
        timeout_s=getattr(args, "timeout", 120.0),
        load_options=_load_options(args),
        **extra,
    )
    return spec if concurrency is None else replace(spec, concurrency=concurrency)


def endpoint_option(args: argparse.Namespace) -> str | None:
    """The --endpoint URLs (repeated or comma-separated) as one comma-separated string, or None."""
    values = getattr(args, "endpoint", None) or []
    joined = ",".join(v.strip() for v in values if v and v.strip())
    return joined or None


def _concurrency(args: argparse.Namespace) -> int | None:
    value = getattr(args, "concurrency", None)
    if value is not None and value < 1:
        raise UserError("--concurrency must be at least 1")
    return value


def _call(function, *call_args, **kwargs):
    """Run a judge call, turning 'cannot load / cannot reach' into user errors."""
    from aesthete_gui.engine.prompts import PromptError
    from aesthete_gui.engine.rubrics import RubricError
    from aesthete_gui.ml.loading import ModelLoadError
    from aesthete_gui.ml.prompt_judge import JudgeUnavailable, is_failure

    try:
        record = function(*call_args, **kwargs)
    except (ModelLoadError, JudgeUnavailable, PromptError, RubricError) as error:
        raise UserError(str(error)) from error
    records = record if isinstance(record, list) else [record]
    records = [r for r in records if hasattr(r, "parsed")]
    failed = [r for r in records if is_failure(r)]
    if records and len(failed) == len(records):
        raise UserError(failed[0].rationale)
    return record


def download_progress(progress: Any) -> None:
    """Show a download's progress in place on stderr."""
    total = f"/{progress.total}" if progress.total else ""
    write_progress(sys.stderr, f"{progress.message}: {progress.done}{total}")


def _preload(judge_or_scorer: Any, args: argparse.Namespace) -> None:
    """Load local weights now (showing download progress with --download); servers need nothing."""
    if getattr(args, "endpoint", None):
        return
    _call(judge_or_scorer.load, progress=download_progress if args.download else None)
    if args.download:
        print(file=sys.stderr)


def run_pair(args: argparse.Namespace) -> int:
    """Judge one pair and print the outcome per dimension (or the exact JSON contract)."""
    from aesthete_gui.services.compare import compare_pair, open_judge

    first, second = _existing([args.a, args.b])
    judge = _call(open_judge, _spec(args, both_orders=args.both_orders))
    _preload(judge, args)
    with saved_profile(args) as profile:
        record = _call(compare_pair, judge, first, second, profile=profile)
    if args.json:
        print(json.dumps({"parsed": record.parsed, "outcome": dict(record.outcome), "raw": record.raw}))
        return 0
    print(f"A = {first}\nB = {second}")
    for key in DIMENSIONS:
        print(f"  {key:<12} {record.outcome.get(key) or '-'}")
    consistency = getattr(record, "consistency", None)
    if args.both_orders:
        text = "n/a" if consistency is None else f"{consistency:.0%}"
        print(f"  consistent across both orders on {text} of the dimensions answered twice")
    if not record.parsed:
        print("The judge's reply could not be parsed; it is kept as given:\n" + record.raw)
    return 0


def run_set(args: argparse.Namespace) -> int:
    """Best and worst of a set, with the three explanation stages when asked."""
    from aesthete_gui.services.compare import compare_set, explanation_subjectivity, open_judge

    images = _existing(args.images)
    if not 2 <= len(images) <= 8:
        raise UserError(f"a set has 2 to 8 images, got {len(images)}")
    if len(set(images)) != len(images):
        raise UserError("the same image is given twice")
    if args.orderings < 1:
        raise UserError("--orderings must be at least 1")
    stream = None if args.json else _print_stage
    spec = _spec(args, set_orderings=args.orderings, set_per_dimension=args.per_dimension)
    judge = _call(open_judge, spec, on_stage=stream)
    _preload(judge, args)
    with saved_profile(args) as profile:
        record = _call(compare_set, judge, images, explain=args.explain, profile=profile)
    report = explanation_subjectivity(record) if args.explain else None
    if args.json:
        payload = {
            "parsed": record.parsed,
            "best": record.best,
            "worst": record.worst,
            "all_orderings_agree": getattr(record, "all_orderings_agree", None),
            "per_dimension": {d: {"best": b, "worst": w} for d, (b, w) in record.per_dimension.items()},
            "stages": list(record.stages),
            "raw": record.raw,
        }
        if report is not None:
            payload["subjective_word_rate"] = round(report.rate, 4)
        print(json.dumps(payload))
        return 0
    print(f"best:  {record.best or '-'}\nworst: {record.worst or '-'}")
    for dimension, (d_best, d_worst) in record.per_dimension.items():
        print(f"  {dimension:<12} best {d_best or '-'}   worst {d_worst or '-'}")
    if args.orderings > 1:
        agree = "yes" if getattr(record, "all_orderings_agree", False) else "no"
        print(f"all {args.orderings} orderings agree: {agree}")
    if report is not None:
        print(f"subjective words in the explanation: {report.rate:.1%} ({', '.join(report.found) or 'none'})")
    if not record.parsed:
        print("The judge's decision could not be parsed; it is kept as given:\n" + record.raw)
    return 0


def _print_stage(event: Any) -> None:
    title = {"analyser": "Analysis", "critic": "Critique", "summariser": "Decision"}[event.stage]
    print(f"--- {title} (ordering {event.ordering_index + 1}) ---\n{event.text}\n", flush=True)


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add `judge pair` and `judge set`."""
    judge = subparsers.add_parser(
        "judge", help="ask a vision-language judge to compare a pair or pick best/worst of a set"
    )
    actions = judge.add_subparsers(dest="judge_command", metavar="ACTION", required=True)
    pair = actions.add_parser("pair", help="compare two images (A = first, B = second) per dimension")
    pair.add_argument("a", metavar="A", help="first image (A)")
    pair.add_argument("b", metavar="B", help="second image (B)")
    pair.add_argument(
        "--both-orders",
        action="store_true",
        help="also judge B vs A and report how consistent the two orders are",
    )
    _judge_options(pair)
    pair.set_defaults(func=run_pair)

    chosen = actions.add_parser("set", help="name the best and worst of 2-8 images of one subject")
    chosen.add_argument("images", nargs="+", metavar="IMG", help="2 to 8 images")
    chosen.add_argument(
        "--explain",
        action="store_true",
        help="three separate calls: analyser, critic, then the decision (shows each stage)",
    )
    chosen.add_argument(
        "--orderings",
        type=int,
        default=1,
        help="judge the set under this many orderings and vote (position bias; default 1)",
    )
    chosen.add_argument(
        "--per-dimension",
        action="store_true",
        help="also name the best and worst for each of the five dimensions",
    )
    _judge_options(chosen)
    chosen.set_defaults(func=run_set)
