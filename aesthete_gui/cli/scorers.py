"""`aesthete scorers`: list the scorers this profile can use."""

from __future__ import annotations

import argparse
import json
from typing import Any

from aesthete_gui.cli.common import open_cli_profile


def entry_json(entry: Any) -> dict[str, Any]:
    """The JSON shape of one registered scorer."""
    return {"id": entry.scorer_id, "kind": entry.kind.value, "label": entry.label,
            "runs_model": entry.runs_model, "can_score": entry.can_score}  # fmt: skip


def _list(args: argparse.Namespace) -> int:
    from aesthete_gui.services.scorer_registry import registered_scorers

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


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the `scorers` command."""
    listing = subparsers.add_parser("scorers", help="list the scorers this profile can use")
    listing.add_argument("--model", default=None, help="also list this local VLM (folder or hub id)")
    listing.add_argument("--json", action="store_true", help="print JSON")
    listing.set_defaults(func=_list)
