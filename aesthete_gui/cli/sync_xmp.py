"""`aesthete sync-xmp`: take sidecar edits made by other programs into the profile (the later change wins)."""

from __future__ import annotations

import argparse
import json
import sys

from aesthete_gui.safe_text import terminal_text


def cmd_sync_xmp(args: argparse.Namespace) -> int:
    """Sync every image's XMP sidecar with the profile; list conflicts settled and unreadable sidecars."""
    from aesthete_gui.cli.common import open_cli_profile
    from aesthete_gui.services.sidecar_sync import sync_sidecars

    profile = open_cli_profile(args)
    try:
        summary = sync_sidecars(profile, write_back=args.write_back, naming=args.xmp_naming)
    finally:
        profile.close()
    if args.json:
        print(json.dumps(summary.__dict__, indent=2))
    else:
        print(f"{summary.checked} images checked: {summary.adopted} marks taken from sidecars, "
              f"{summary.conflicts} conflicts settled by time ({summary.profile_kept} kept this profile's value)")  # fmt: skip
        if summary.behind:
            print(f"{summary.behind} sidecars behind this profile's marks (a write that failed, or marks made "
                  + (f"with sidecars off): {summary.written_back} written" if args.write_back else
                     "with sidecars off): `aesthete sync-xmp --write-back` brings them up to date"))  # fmt: skip
    if summary.not_written:
        print(f"{summary.not_written} sidecars not written (why, below)", file=sys.stderr)
    for path, reason in summary.problems:
        print(f"  {terminal_text(path)}: {terminal_text(reason)}", file=sys.stderr)
    return 1 if summary.not_written else 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the `sync-xmp` command."""
    p = subparsers.add_parser(
        "sync-xmp", help="take sidecar edits made by other programs into the profile"
    )
    p.add_argument("--write-back", action="store_true",
                   help="rewrite sidecars whose conflicting value lost to a later change made here, and "
                        "sidecars behind this profile's marks (a write that failed: a full disk)")  # fmt: skip
    p.add_argument("--xmp-naming", choices=["auto", "full", "stem"], default="auto",
                   help="new sidecar names for --write-back")  # fmt: skip
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.set_defaults(func=cmd_sync_xmp)
