"""`aesthete distill | distill-vlm | prefer | taste | rank-images`: scorers and personal taste."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from aesthete_gui.cli import UserError
from aesthete_gui.cli.common import open_cli_profile, write_progress
from aesthete_gui.cli.taste_json import (
    adapter_json,
    distill_json,
    image_paths,
    ranking_json,
    report_json,
    suggestions_json,
)
from aesthete_gui.engine.dimensions import DIMENSIONS
from aesthete_gui.jobs import CancelToken, Progress
from aesthete_gui.settings import resolve_profile_path

if TYPE_CHECKING:
    from aesthete_gui.services.taste import Agreement, TasteReport


def _progress_printer(quiet: bool) -> Any:
    last = {"message": ""}

    def report(progress: Progress) -> None:
        if quiet or progress.message == last["message"]:
            return
        last["message"] = progress.message
        write_progress(sys.stderr, progress.message[:100].ljust(100))

    return report


def _taste_errors() -> tuple[type[Exception], ...]:
    from aesthete_gui.services.scoring import ScorerNotFoundError
    from aesthete_gui.services.taste import TasteError

    return (TasteError, ScorerNotFoundError)


def _format_agreement(label: str, value: Agreement) -> str:
    return f"{label}: {value.mean:.3f} (95% CI {value.low:.3f}-{value.high:.3f})"


def _print_figures(held_out: int | None, base: Agreement | None, adapter: Agreement | None) -> None:
    from aesthete_gui.services.taste import not_enough_held_out

    if base is None or adapter is None:
        print(f"  {not_enough_held_out(held_out or 0)}")
        return
    print(f"  held out (the {held_out} latest choices, never trained on):")
    print("  " + _format_agreement("base scorer agreement", base))
    print("  " + _format_agreement("adapter agreement    ", adapter))


def _print_report(report: TasteReport) -> None:
    print(f"adapter {report.name!r} on {report.base_scorer}: {report.choices} choices")
    _print_figures(report.held_out, report.base, report.adapter)


# -- prefer --------------------------------------------------------------------------------------
def _prefer(args: argparse.Namespace) -> int:
    from aesthete_gui.safe_text import terminal_text
    from aesthete_gui.services.choices_csv import ChoicesCsvError, import_choices
    from aesthete_gui.services.taste import record_choice

    profile = open_cli_profile(args)
    try:
        if args.from_csv:
            if args.a or args.b:
                raise UserError("give either two images or --from CHOICES.csv, not both")
            try:
                done = import_choices(profile, args.from_csv, keep_duplicates=args.keep_duplicates)
            except ChoicesCsvError as error:
                raise UserError(str(error)) from error
            print(terminal_text(done.describe(args.from_csv)))
            return 0
        if not (args.a and args.b and args.winner):
            raise UserError("prefer needs two images and --winner a|b|tie (or --from CHOICES.csv)")
        choice_id = record_choice(profile, args.a, args.b, args.winner, args.dimension)
        print(f"recorded choice {choice_id}: {args.winner} on {args.dimension}")
        return 0
    except _taste_errors() as error:
        raise UserError(str(error)) from error
    finally:
        profile.close()


# -- taste ---------------------------------------------------------------------------------------
def _taste_train(args: argparse.Namespace) -> int:
    from aesthete_gui.services.taste import train_taste

    profile = open_cli_profile(args)
    try:
        report = train_taste(profile, args.name, args.base, progress=_progress_printer(args.json))
    except _taste_errors() as error:
        raise UserError(str(error)) from error
    finally:
        profile.close()
    if not args.json:
        sys.stderr.write("\n")
    if args.json:
        print(json.dumps(report_json(report), indent=2))
    else:
        _print_report(report)
        print(f"trained in {report.seconds:.2f} s")
        if report.active:
            print(f"{report.name!r} is now the active adapter (it measured at least as good as the base scorer)")
        else:
            why = "it measured worse than the base scorer" if report.measured else "its agreement could not be measured"
            print(f"{report.name!r} is NOT active: {why}; the base scorer stays in charge.")
            print(f"  to use it anyway: aesthete taste use {report.name}")
    return 0


def _taste_eval(args: argparse.Namespace) -> int:
    from aesthete_gui.services.taste import evaluate_taste

    profile = open_cli_profile(args)
    try:
        report = evaluate_taste(profile, args.base, progress=_progress_printer(args.json), name="(evaluation)")
    except _taste_errors() as error:
        raise UserError(str(error)) from error
    finally:
        profile.close()
    from aesthete_gui.services.taste_guard import may_activate

    result = report_json(report)
    del result["active"]  # nothing is stored or switched by an evaluation
    result["would_activate"] = may_activate(*(a.mean if a else None for a in (report.base, report.adapter)))
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        sys.stderr.write("\n")
        _print_report(report)
        print("an adapter trained now " + ("would" if result["would_activate"] else "would NOT") + " become active")
    return 0


def _taste_suggest(args: argparse.Namespace) -> int:
    from aesthete_gui.services.taste import suggest_next_pairs

    profile = open_cli_profile(args)
    try:
        pairs = suggest_next_pairs(profile, args.count, args.dimension, progress=_progress_printer(args.json),
                                   include_rejects=args.include_rejects)
        paths = image_paths(profile)
    except _taste_errors() as error:
        raise UserError(str(error)) from error
    finally:
        profile.close()
    if args.json:
        print(json.dumps(suggestions_json(pairs, paths), indent=2))
    else:
        sys.stderr.write("\n")
        for pair in pairs:
            print(f"{paths[pair.a]}\t{paths[pair.b]}\t(expected information {pair.information:.4f})")
    return 0


def _taste_list(args: argparse.Namespace) -> int:
    from aesthete_gui.services.taste import list_adapters

    profile = open_cli_profile(args)
    try:
        adapters = list_adapters(profile)
    finally:
        profile.close()
    if args.json:
        print(json.dumps([adapter_json(a) for a in adapters], indent=2, default=str))
        return 0
    if not adapters:
        print("no adapters yet: record choices with `aesthete prefer`, then `aesthete taste train`")
    from aesthete_gui.services.taste import not_enough_held_out

    for item in adapters:
        adapted, base = item.adapter, item.base
        star = "*" if item.active else " "
        measured = f"agreement {adapted.mean:.3f} vs base {base.mean:.3f} on {item.held_out} held out" if adapted and base else not_enough_held_out(item.held_out or 0)
        print(f"{star} {item.name}\t{item.base_scorer}\t{item.choices} choices\t{measured}")
    return 0


def _taste_use(args: argparse.Namespace) -> int:
    from aesthete_gui.services.scoring import personal_scorer_id
    from aesthete_gui.services.taste import adapter_figures, store_personal_ranking, use_adapter

    profile = open_cli_profile(args)
    try:
        use_adapter(profile, args.name)
        record = profile.adapters.active()
        if record is not None and not profile.scores.of_scorer(personal_scorer_id(profile) or ""):
            store_personal_ranking(profile, record.name)  # an adapter trained before rankings were stored
    except _taste_errors() as error:
        raise UserError(str(error)) from error
    finally:
        profile.close()
    if record is None:
        print("no adapter active: ranking by the base scorer")
        return 0
    print(f"active adapter: {record.name} (your choice; its held-out figures:)")
    figures = adapter_figures(record)
    _print_figures(figures.held_out, figures.base, figures.adapter)
    return 0


# -- rank-images ---------------------------------------------------------------------------------
def _rank_images(args: argparse.Namespace) -> int:
    from aesthete_gui.safe_text import terminal_text
    from aesthete_gui.services.taste import rank_images

    profile = open_cli_profile(args)
    try:
        ranking = rank_images(profile, args.adapter, args.dimension, progress=_progress_printer(args.json))
        paths = image_paths(profile)
    except _taste_errors() as error:
        raise UserError(str(error)) from error
    finally:
        profile.close()
    ranked = ranking_json(ranking, paths)
    if args.limit:
        ranked = ranked[: args.limit]
    if args.json:
        print(json.dumps(ranked, indent=2))
    else:
        sys.stderr.write("\n")
        for rank, item in enumerate(ranked, start=1):
            print(f"{rank:5d}  {item['score']:.3f}  {terminal_text(item['path'])}")
    return 0


# -- distill -------------------------------------------------------------------------------------
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
    try:
        judge = make_judge(args.judge, args.endpoint, args.model, args.preset, args.api_key_env, args.max_new_tokens)
        options = DistillOptions(pool=args.pool, refs=args.refs, adaptive=args.adaptive, seed=args.seed, student=None if args.no_student else args.student, preset=args.preset)
        distilled = distill_profile(profile, judge, options, progress=_progress_printer(args.json), cancel=token)
        summary = distill_json(distilled, image_paths(profile))
    except DistillError as error:
        if not args.json:
            sys.stderr.write("\n")  # end the progress line so the error is a line of its own
        raise UserError(str(error)) from error
    finally:
        profile.close()
    if args.json:
        print(json.dumps(summary, indent=2, default=str))
    else:
        sys.stderr.write("\n")
        for key, value in summary.items():
            print(f"{key}: {value}")
    return 0


def _distill_vlm(args: argparse.Namespace) -> int:
    from aesthete_gui.training.grpo_recipe import config_from_args, train_vlm_student

    try:
        config = config_from_args(args)
        summary = train_vlm_student(resolve_profile_path(args.profile), args.model, args.output, config)
    except ImportError as error:
        raise UserError(f"the VLM recipe needs trl, peft and accelerate: pip install 'aesthete-gui[rl]' ({error})") from error
    except ValueError as error:
        raise UserError(str(error)) from error
    print(json.dumps(summary, indent=2))
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the taste and distillation commands."""
    p = subparsers.add_parser("prefer", help="record which of two images you prefer (or import choices from CSV)")
    p.add_argument("a", nargs="?", help="first image (shown left), path or id")
    p.add_argument("b", nargs="?", help="second image (shown right), path or id")
    p.add_argument("--winner", choices=("a", "b", "tie"), help="which one you prefer")
    p.add_argument("--dimension", default="overall", choices=DIMENSIONS, help="what the choice is about (default overall)")
    p.add_argument("--from", dest="from_csv", metavar="CHOICES.csv", help="import rows a,b,winner[,dimension]; all or nothing")
    p.add_argument("--keep-duplicates", action="store_true", help="with --from: also import rows already imported from a CSV")
    p.set_defaults(func=_prefer)

    taste = subparsers.add_parser("taste", help="train, evaluate and switch your personal taste adapters")
    commands = taste.add_subparsers(dest="taste_command", metavar="ACTION", required=True)
    t = commands.add_parser("train", help="train an adapter on your choices; active if it predicts them at least as well as the base")
    t.add_argument("--name", default=None, help="adapter name (default: default); several per profile")
    t.add_argument("--base", default=None, help="base scorer (default: newest student, else builtin)")
    t.add_argument("--json", action="store_true", help="print the report as JSON")
    t.set_defaults(func=_taste_train)
    e = commands.add_parser("eval", help="held-out agreement of the base scorer and an adapter with your later choices")
    e.add_argument("--base", default=None, help="base scorer (default: newest student, else builtin)")
    e.add_argument("--json", action="store_true", help="print the report as JSON")
    e.set_defaults(func=_taste_eval)
    s = commands.add_parser("suggest", help="the next pairs worth judging (where the model is least sure)")
    s.add_argument("--count", type=int, default=5, help="how many pairs (default 5)")
    s.add_argument("--dimension", default="overall", choices=DIMENSIONS, help="dimension to ask about")
    s.add_argument("--include-rejects", action="store_true", help="also offer images you rejected")
    s.add_argument("--json", action="store_true", help="print JSON")
    s.set_defaults(func=_taste_suggest)
    li = commands.add_parser("list", help="list the adapters with their held-out agreement")
    li.add_argument("--json", action="store_true", help="print JSON")
    li.set_defaults(func=_taste_list)
    u = commands.add_parser("use", help="make an adapter active whatever it measured ('none' for the base scorer alone)")
    u.add_argument("name", help="adapter name, or none")
    u.set_defaults(func=_taste_use)

    r = subparsers.add_parser("rank-images", help="the library ranked best first by your active scorer")
    r.add_argument("--adapter", default=None, help="rank with this adapter instead of the active one")
    r.add_argument("--dimension", default="overall", choices=DIMENSIONS, help="dimension to rank by")
    r.add_argument("--limit", type=int, default=0, help="print only the first N")
    r.add_argument("--json", action="store_true", help="print a JSON list of {path, score, ...}")
    r.set_defaults(func=_rank_images)

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

    from aesthete_gui.training.grpo_recipe import add_arguments

    v = subparsers.add_parser("distill-vlm", help="GPU recipe: train a VLM student with GRPO on the pseudo-scores (LoRA)")
    add_arguments(v)
    v.set_defaults(func=_distill_vlm)
