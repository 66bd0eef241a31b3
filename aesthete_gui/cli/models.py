"""`aesthete models`: list the known judge and encoder models and which are installed."""

from __future__ import annotations

import argparse
import json
import sys


def run_models(args: argparse.Namespace) -> int:
    """The model cards, with where each is installed (offline check of the standard cache)."""
    from aesthete_gui.ml.registry import installed_path, list_cards

    rows = []
    for card in list_cards():
        location = "built in" if card.id == "builtin" else installed_path(card.id)
        rows.append(
            {
                "id": card.id,
                "role": card.role,
                "family": card.family,
                "parameters_billion": card.parameters_billion,
                "memory_gib_bf16": card.memory_gib_bf16,
                "licence": card.licence,
                "licence_allows_commercial_use": card.permissive,
                "licence_source": card.licence_source,
                "default_judge": card.default_judge,
                "protocols_checked": list(card.protocols_checked),
                "installed": str(location) if location else None,
            }
        )
    if args.json:
        print(json.dumps(rows))
        return 0
    for row in rows:
        where = row["installed"] or "not installed (use --download with a command)"
        print(
            f"{row['id']:<36} {row['role']:<8} {row['parameters_billion']:>6g}B "
            f"{row['memory_gib_bf16']:>5g} GiB  {row['licence']:<40} {where}",
            file=sys.stdout,
        )
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the `models` command."""
    models = subparsers.add_parser("models", help="list known judge and encoder models and which are installed")
    models.add_argument("--json", action="store_true", help="print JSON")
    models.set_defaults(func=run_models)
