"""`aesthete import | images | bursts | mark | export`: the image library from the command line."""

from __future__ import annotations

import argparse
import json
import signal
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from aesthete_gui.cli import UserError
from aesthete_gui.cli.common import library_image_ids, open_cli_profile, write_progress
from aesthete_gui.cli.verdicts import add_shoot_type_option, use_shoot_type
from aesthete_gui.jobs import CancelToken, Progress
from aesthete_gui.safe_text import terminal_text
from aesthete_gui.store import COLOR_LABELS

if TYPE_CHECKING:
    from aesthete_gui.services.library import ImportSummary

EXIT_INTERRUPTED = 130


def import_json(summary: ImportSummary) -> dict[str, Any]:
    """`import --json`: the import's counts, problems as [path, reason] pairs."""
    data = asdict(summary)
    data["problems"] = [list(p) for p in summary.problems]
    data["sidecar_problems"] = [list(p) for p in summary.sidecar_problems]
    return data


class _ProgressBar:
    """A one-line progress bar on stderr (redrawn at most ten times a second)."""

    def __init__(self, stream: Any = None) -> None:
        self.stream = stream or sys.stderr
        self.last = 0.0
        self.drawn = False

    def __call__(self, progress: Progress) -> None:
        now = time.monotonic()
        final = progress.total is not None and progress.done >= progress.total
        if now - self.last < 0.1 and not final:
            return
        self.last = now
        if progress.total:
            filled = int(30 * progress.done / progress.total)
            text = f"[{'#' * filled}{'.' * (30 - filled)}] {progress.done}/{progress.total}"
        else:
            text = terminal_text(progress.message)
        write_progress(self.stream, text[:100].ljust(100))
        self.drawn = True

    def close(self) -> None:
        """End the bar's line."""
        if self.drawn:
            self.stream.write("\n")
            self.stream.flush()


@contextmanager
def _ctrl_c_cancels(token: CancelToken) -> Iterator[None]:
    """First Ctrl-C cancels the job (it stops cleanly); a second one interrupts at once."""

    def handle(_signum: int, _frame: Any) -> None:
        if token.cancelled:
            raise KeyboardInterrupt
        token.cancel()
        sys.stderr.write("\naesthete: stopping after the files in progress (Ctrl-C again to abort)\n")

    try:
        previous = signal.signal(signal.SIGINT, handle)
    except ValueError:  # not the main thread: no signal handling, the token still works
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def cmd_import(args: argparse.Namespace) -> int:
    """Import folders; exit 0 when the import ran (bad files are recorded, not fatal)."""
    from aesthete_gui.services.library import import_folders

    profile = open_cli_profile(args)
    token = CancelToken()
    bar = _ProgressBar()
    try:
        use_shoot_type(profile, args.shoot_type)  # the import's regrouping judges under it
        with _ctrl_c_cancels(token):
            summary = import_folders(profile, args.dirs, progress=None if args.quiet else bar,
                                     cancel=token, workers=args.workers, features=args.features,
                                     previews=args.previews)  # fmt: skip
    except FileNotFoundError as error:
        raise UserError(terminal_text(error)) from error
    finally:
        bar.close()
        profile.close()
    if args.json:
        print(json.dumps(import_json(summary), indent=2))
    else:
        print(
            f"{summary.found} files found: {summary.imported} imported, {summary.unchanged} unchanged, "
            f"{summary.moved} moved, {summary.errors} could not be read, {summary.missing} missing; "
            f"{summary.bursts} bursts; {summary.marks_from_xmp} marks read from XMP "
            f"({summary.seconds:.1f} s)"
        )
        from aesthete_gui.imaging.faces import unavailable_reason

        reason = unavailable_reason()
        if reason:
            print(f"note: {reason}")
        if summary.sidecar_conflicts:
            print(f"  {summary.sidecar_conflicts} marks changed both here and in a sidecar: the later change "
                  "was kept, the other is in the image's mark history")  # fmt: skip
        for path, reason in summary.problems[:20]:
            print(f"  {terminal_text(path)}: {terminal_text(reason)}")
        if len(summary.problems) > 20:
            print(f"  … and {len(summary.problems) - 20} more (see `aesthete images --status error`)")
        for path, reason in summary.sidecar_problems[:20]:
            print(f"  {terminal_text(path)}: imported; {terminal_text(reason)}")
        if len(summary.sidecar_problems) > 20:
            print(f"  … and {len(summary.sidecar_problems) - 20} more sidecars not read")
    if summary.cancelled:
        print("aesthete: import cancelled; run it again to finish", file=sys.stderr)
        return EXIT_INTERRUPTED
    return 0


def _image_row(image: Any, marks: dict[int, Any]) -> dict[str, Any]:
    mark = marks.get(image.id)
    missing = image.status == "missing"
    return {
        "id": image.id,
        "path": image.path,
        "status": "error" if missing else image.status,
        "error": image.error,
        "missing": missing,
        "width": image.width,
        "height": image.height,
        "format": image.format,
        "capture_time": image.capture_time,
        "camera": image.camera,
        "burst": image.burst_id,
        "stars": mark.stars if mark else 0,
        "flag": mark.flag if mark else None,
        "label": mark.label if mark else None,
    }


def cmd_images(args: argparse.Namespace) -> int:
    """List the images in the profile."""
    profile = open_cli_profile(args)
    try:
        use_shoot_type(profile, args.shoot_type)
        marks = profile.marks.all()
        status = None if args.status == "all" else args.status
        rows = [_image_row(i, marks) for i in profile.catalog.images(status=status)]
        if args.json:
            from aesthete_gui.cli.culling import culling_fields

            culling = culling_fields(profile)
            for row in rows:
                row.update(culling[row["id"]])
    finally:
        profile.close()
    if args.json:
        print(json.dumps(rows, indent=2, ensure_ascii=False))
        return 0
    for row in rows:
        detail = row["error"] if row["status"] != "ok" else f"{row['width']}x{row['height']}"
        stars = "*" * row["stars"]
        print(f"{row['id']:>6}  {row['status']:<5}  {stars:<5}  {terminal_text(row['path'])}  "
              f"({terminal_text(detail)})")
    return 0


def cmd_bursts(args: argparse.Namespace) -> int:
    """List the bursts and their frames, the best frame of each marked (as the grid's collapsed bursts show)."""
    from aesthete_gui.engine.scorers import BUILTIN
    from aesthete_gui.services.library_bursts import best_frames
    from aesthete_gui.settings import profile_setting

    profile = open_cli_profile(args)
    try:
        scorer = profile_setting(profile.path, "scorer", BUILTIN) or None
        best = best_frames(profile, scorer if isinstance(scorer, str) else None)
        paths = {i.id: i.path for i in profile.catalog.images()}
        bursts: list[dict[str, Any]] = [
            {"id": b.id, "edited": b.edited, "best": best.get(b.id),
             "images": [{"id": i, "path": paths.get(i), "best": i == best.get(b.id)} for i in b.image_ids]}
            for b in profile.catalog.bursts()
        ]  # fmt: skip
    finally:
        profile.close()
    if args.json:
        print(json.dumps(bursts, indent=2, ensure_ascii=False))
        return 0
    for burst in bursts:
        edited = ", edited" if burst["edited"] else ""
        print(f"burst {burst['id']} ({len(burst['images'])} frames{edited})")
        for image in burst["images"]:
            marker = "* " if image["best"] else "  "
            print(f"  {marker}{terminal_text(image['path'])}{'  (best)' if image['best'] else ''}")
    if bursts:
        print(f"* the best frame of each burst: eyes open, in focus, no clipping, then the highest score ({scorer or 'no scorer'})")
    else:
        print("no bursts")
    return 0


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
    finally:
        profile.close()
    rows = [{"id": m.image_id, "stars": m.stars, "flag": m.flag, "label": m.label} for m in result.marks]
    print(json.dumps(rows[0] if len(args.images) == 1 and len(rows) == 1 else rows))
    for problem in result.problems:
        print(f"aesthete: mark saved in the profile; {terminal_text(problem)}", file=sys.stderr)
    return 1 if result.problems else 0


def cmd_export(args: argparse.Namespace) -> int:
    """Export the library as CSV, JSON, or XMP sidecars."""
    from aesthete_gui.services.library import export

    profile = open_cli_profile(args)
    try:
        result = export(profile, args.format, args.output, naming=args.xmp_naming)
    except OSError as error:
        raise UserError(f"cannot write the export: {terminal_text(error)}") from error
    finally:
        profile.close()
    if result.text is not None:
        sys.stdout.write(result.text)
    elif args.format == "xmp":
        print(f"{result.count} sidecars written")
    else:
        print(f"{result.count} images exported to {terminal_text(result.destination)}", file=sys.stderr)
    for path, reason in result.problems:
        print(f"  {terminal_text(path)}: {terminal_text(reason)}", file=sys.stderr)
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the library commands."""
    p = subparsers.add_parser("import", help="import folders of images into the profile (recursive)")
    p.add_argument("dirs", nargs="+", metavar="DIR", help="folders to import")
    p.add_argument("--workers", type=int, default=None, help="worker processes (default: all cores)")
    p.add_argument("--features", action="store_true", help="also compute the image-property features")
    p.add_argument("--previews", action="store_true",
                   help="also build the ~1024 px previews now (default: when first shown)")  # fmt: skip
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    add_shoot_type_option(p)
    p.set_defaults(func=cmd_import)

    p = subparsers.add_parser("images", help="list the images in the profile")
    p.add_argument("--json", action="store_true", help="print a JSON list")
    add_shoot_type_option(p)
    p.add_argument("--status", choices=["all", "ok", "error", "missing"], default="all",
                   help="only images with this status")  # fmt: skip
    p.set_defaults(func=cmd_images)

    p = subparsers.add_parser("bursts", help="list bursts (frames shot in quick succession) and the best frame of each")
    p.add_argument("--json", action="store_true", help="print a JSON list")
    p.set_defaults(func=cmd_bursts)

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
    p.set_defaults(func=cmd_mark)

    p = subparsers.add_parser("export", help="export marks and scores as CSV, JSON or XMP sidecars")
    p.add_argument("--format", choices=["csv", "json", "xmp"], required=True, help="export format")
    p.add_argument("--output", metavar="PATH", help="file to write (csv/json; default: stdout)")
    p.add_argument("--xmp-naming", choices=["auto", "full", "stem"], default="auto",
                   help="new sidecar names for --format xmp")  # fmt: skip
    p.set_defaults(func=cmd_export)
