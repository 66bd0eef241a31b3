"""`aesthete bursts`: list the bursts and their frames, the best frame of each marked."""

from __future__ import annotations

import argparse
import json
from typing import Any

from aesthete_gui.cli.common import open_cli_profile, up_to_date
from aesthete_gui.safe_text import terminal_text


def cmd_bursts(args: argparse.Namespace) -> int:
    """List the bursts and their frames, the best frame of each marked (as the grid's collapsed bursts show)."""
    from aesthete_gui.engine.scorers import BUILTIN
    from aesthete_gui.services.library_bursts import best_frames
    from aesthete_gui.settings import profile_setting

    profile = open_cli_profile(args)
    try:
        up_to_date(profile)
        scorer = profile_setting(profile.path, "scorer", BUILTIN) or None
        best = best_frames(profile, scorer if isinstance(scorer, str) else None)
        paths = {i.id: i.path for i in profile.catalog.images()}
        stored = profile.checks.all()
        suggested = profile.checks.suggested_rejects()
        marks = profile.marks.all()
        bursts: list[dict[str, Any]] = []
        for b in profile.catalog.bursts():
            # a frame of a bracket, panorama or focus stack is kept with its set (a burst may hold one
            # beside ordinary frames): the grid's frame for the burst is "the best" only outside a set
            sets = {i: _set_of(stored.get(i, ([], []))[0]) for i in b.image_ids}
            chosen = best.get(b.id)
            whole = next(iter(set(sets.values()))) if len(set(sets.values())) == 1 else ""
            bursts.append({"id": b.id, "edited": b.edited, "best": chosen, "set": whole,
                           "images": [{"id": i, "path": paths.get(i), "best": i == chosen, "set": sets[i],
                                       "suggested_reject": i in suggested,
                                       "flag": marks[i].flag if i in marks else None} for i in b.image_ids]})  # fmt: skip
    finally:
        profile.close()
    if args.json:
        print(json.dumps(bursts, indent=2, ensure_ascii=False))
        return 0
    for burst in bursts:
        edited = ", edited" if burst["edited"] else ""
        what = f": {terminal_text(burst['set'])}" if burst["set"] else ""
        print(f"burst {burst['id']} ({len(burst['images'])} frames{edited}){what}")
        for image in burst["images"]:
            marker = "* " if image["best"] and not image["set"] else "  "
            note = ("  (shown for the set)" if image["set"] else "  (best)") if image["best"] else ""
            own = f"  [{terminal_text(image['set'])}]" if image["set"] and not burst["set"] else ""
            flagged = {"pick": "  picked", "reject": "  rejected"}.get(image["flag"] or "", "")
            flagged += "  ✖ suggested reject" if image["suggested_reject"] else ""
            print(f"  {marker}{terminal_text(image['path'])}{note}{own}{flagged}")
    if bursts:
        print(f"* the frame each burst shows: the one you picked (else starred or labelled), else eyes open, in focus, "
              f"no clipping, then the highest score ({scorer or 'no scorer'}); ✖ a suggested reject (`aesthete recheck` says why); picked, rejected: your flags")
    else:
        print("no bursts")
    return 0


def _set_of(checks: list[dict[str, Any]]) -> str:
    """The stored reason of a frame's set ("kept with its set (...)"), or "" for a frame of none."""
    return next((str(c.get("reason")) for c in checks if c.get("name") == "sequence"), "")


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the `bursts` command."""
    p = subparsers.add_parser("bursts", help="list bursts (frames shot in quick succession) and the best frame of each")
    p.add_argument("--json", action="store_true", help="print a JSON list")
    p.set_defaults(func=cmd_bursts)
