"""`aesthete taste train | eval | suggest | list | use`: your personal taste adapters."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

from aesthete_gui.cli import UserError
from aesthete_gui.cli.common import ProgressBar, open_cli_profile
from aesthete_gui.cli.taste_json import (
    adapter_json,
    image_paths,
    report_json,
    suggestions_json,
)
from aesthete_gui.engine.dimensions import DIMENSIONS

if TYPE_CHECKING:
    from aesthete_gui.services.taste import Agreement, TasteReport


def progress_printer(quiet: bool) -> ProgressBar:
    """The progress line on stderr (nothing with --json); close() ends it before the results print."""
    return ProgressBar(silent=quiet)


def taste_errors() -> tuple[type[Exception], ...]:
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


def _taste_train(args: argparse.Namespace) -> int:
    from aesthete_gui.services.taste import train_taste

    profile = open_cli_profile(args)
    bar = progress_printer(args.json)
    try:
        report = train_taste(profile, args.name, args.base, progress=bar)
    except taste_errors() as error:
        raise UserError(str(error)) from error
    finally:
        bar.close()
        profile.close()
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
    bar = progress_printer(args.json)
    try:
        report = evaluate_taste(profile, args.base, progress=bar, name="(evaluation)")
    except taste_errors() as error:
        raise UserError(str(error)) from error
    finally:
        bar.close()
        profile.close()
    from aesthete_gui.services.taste_guard import may_activate

    result = report_json(report)
    del result["active"]  # nothing is stored or switched by an evaluation
    result["would_activate"] = may_activate(*(a.mean if a else None for a in (report.base, report.adapter)))
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        _print_report(report)
        print("an adapter trained now " + ("would" if result["would_activate"] else "would NOT") + " become active")
    return 0


def _taste_suggest(args: argparse.Namespace) -> int:
    from aesthete_gui.services.taste import suggest_next_pairs

    profile = open_cli_profile(args)
    bar = progress_printer(args.json)
    try:
        pairs = suggest_next_pairs(profile, args.count, args.dimension, progress=bar, include_rejects=args.include_rejects)
        paths = image_paths(profile)
    except taste_errors() as error:
        raise UserError(str(error)) from error
    finally:
        bar.close()
        profile.close()
    if args.json:
        print(json.dumps(suggestions_json(pairs, paths), indent=2))
    else:
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
    except taste_errors() as error:
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


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add `taste train | eval | suggest | list | use`."""
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
