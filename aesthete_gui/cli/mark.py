"""`aesthete mark`: set stars, pick/reject and colour labels in the profile and the XMP sidecars."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from aesthete_gui.cli import UserError
from aesthete_gui.cli.common import library_image_ids, open_cli_profile
from aesthete_gui.safe_text import terminal_text
from aesthete_gui.store import COLOR_LABELS


def describe_marks(stars: int, flag: str | None, label: str | None) -> str:
    """A photograph's marks in words: "★★★ · pick · blue label", "no marks"."""
    parts = ["★" * stars if stars else "", {"pick": "pick", "reject": "rejected"}.get(flag or "", ""), f"{label} label" if label else ""]
    return " · ".join(p for p in parts if p) or "no marks"


def cmd_mark(args: argparse.Namespace) -> int:
    """Set stars, pick/reject and colour label on images, in the profile and their XMP sidecars."""
    from aesthete_gui.services.library_marks import mark_images
    from aesthete_gui.services.sidecar_sync import sidecar_rules
    from aesthete_gui.store.records import UNSET

    flag: Any = UNSET
    if args.pick:
        flag = "pick"
    elif args.reject:
        flag = "reject"
    elif args.unflag:
        flag = None
    label: Any = UNSET if args.label is None else (None if args.label.lower() == "none" else args.label)
    stars: Any = UNSET if args.stars is None else args.stars
    if stars is UNSET and flag is UNSET and label is UNSET and not args.xmp:
        raise UserError("nothing to do: give --stars, --pick/--reject/--unflag, --label or --xmp")
    profile = open_cli_profile(args)
    try:
        ids = library_image_ids(profile, args.images)
        rules = sidecar_rules(profile)
        write_xmp = rules.write if args.xmp is None else args.xmp
        try:
            result = mark_images(profile, ids, stars, flag, label, write_xmp=write_xmp,
                                 naming=args.xmp_naming, pairs_as_one=args.pairs)  # fmt: skip
        except ValueError as error:
            raise UserError(str(error)) from error
        paths = {m.image_id: record.path for m in result.marks if (record := profile.catalog.image_by_id(m.image_id)) is not None}
    finally:
        profile.close()
    if args.json:
        rows = [{"id": m.image_id, "path": paths.get(m.image_id), "stars": m.stars, "flag": m.flag, "label": m.label}
                for m in result.marks]  # fmt: skip
        print(json.dumps(rows[0] if len(args.images) == 1 and len(rows) == 1 else rows))
    else:
        for m in result.marks:
            print(terminal_text(f"{paths.get(m.image_id, f'image {m.image_id}')}: {describe_marks(m.stars, m.flag, m.label)}"))
    for problem in result.problems:
        print(f"aesthete: mark saved in the profile; {terminal_text(problem)}", file=sys.stderr)
    if result.stopped is not None and result.marks:  # none made: the error's own words say it all
        print(f"aesthete: {len(result.marks)} of {result.wanted} images marked (listed above) before the "
              "profile could take no more; the others were left as they were", file=sys.stderr)  # fmt: skip
    result.raise_if_stopped()
    return 1 if result.problems else 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the `mark` command."""
    p = subparsers.add_parser(
        "mark", help="set stars, pick/reject and colour label on images (and their XMP sidecars)",
        description="Set marks in the profile and, like the window, merge them into each image's XMP "
        "sidecar unless the profile's setting 'xmp_enabled' is off (Edit > Write marks to XMP sidecars "
        "in the window) or --no-xmp is given. A RAW+JPEG pair is two photographs with a sidecar each "
        "(IMG.xmp for the RAW, IMG.JPG.xmp for the JPEG) unless the profile's setting "
        "'raw_jpeg_pairs_as_one' is on (Edit > Treat RAW+JPEG pairs as one): then a mark on either "
        "half applies to both.")  # fmt: skip
    p.add_argument("images", nargs="+", metavar="IMAGE", help="image path (or id) in the profile")
    p.add_argument("--stars", type=int, choices=range(6), metavar="N", help="0..5 stars")
    flags = p.add_mutually_exclusive_group()
    flags.add_argument("--pick", action="store_true", help="flag as pick")
    flags.add_argument("--reject", action="store_true", help="flag as reject")
    flags.add_argument("--unflag", action="store_true", help="remove the pick/reject flag")
    p.add_argument("--label", metavar="COLOR",
                   help=f"colour label: {', '.join(COLOR_LABELS)} or none")  # fmt: skip
    xmp = p.add_mutually_exclusive_group()
    xmp.add_argument("--xmp", dest="xmp", action="store_true", default=None,
                     help="write the sidecars even if the profile's setting is off (alone: rewrite "
                          "them from the profile)")  # fmt: skip
    xmp.add_argument("--no-xmp", dest="xmp", action="store_false",
                     help="change the profile only, no sidecar")  # fmt: skip
    p.add_argument("--xmp-naming", choices=["auto", "full", "stem"], default="auto",
                   help="new sidecar names: IMG.xmp (stem), IMG.CR2.xmp (full) or auto")  # fmt: skip
    pairs = p.add_mutually_exclusive_group()
    pairs.add_argument("--pairs-as-one", dest="pairs", action="store_true", default=None,
                       help="this time, mark both halves of a RAW+JPEG pair")  # fmt: skip
    pairs.add_argument("--pairs-separate", dest="pairs", action="store_false",
                       help="this time, mark only the half named")  # fmt: skip
    p.add_argument("--json", action="store_true", help="print the marks as JSON (id, path, stars, flag, label) for scripts")
    p.set_defaults(func=cmd_mark)
