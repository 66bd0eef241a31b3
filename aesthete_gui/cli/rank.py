"""`aesthete rank`: turn pairwise outcomes (votes, tournament results, judgments) into calibrated scores."""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from aesthete_gui.cli import UserError
from aesthete_gui.services.output_guard import check_report_target, write_report

METHODS = ("elo", "anchored-elo", "davidson")
WINNER_SCORES = {"a": 1.0, "b": 0.0, "tie": 0.5}
ALL_DIMENSIONS = ""  # anchors without a dimension column apply to every dimension


@dataclass(frozen=True)
class RankedItem:
    """One output row."""

    item: str
    latent: float
    score: float
    dimension: str | None


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the `rank` sub-command."""
    parser = subparsers.add_parser(
        "rank",
        help="rank items from pairwise outcomes (CSV a,b,winner[,dimension]) into 1-5 scores",
        description=(
            "Rank anything from pairwise outcomes. The input CSV has a header with columns a, b and "
            "winner (a, b or tie) and optionally dimension. Scores are calibrated to 1..5: with "
            "--anchors by a sigmoid fitted on the anchors' known scores, otherwise by the min-max "
            "sigmoid of the reference-pool bridge."
        ),
    )
    parser.add_argument("comparisons", help="CSV file with columns a,b,winner[,dimension] ('-' reads stdin)")
    parser.add_argument(
        "--anchors",
        metavar="CSV",
        help="CSV with columns item,score[,dimension]: items with known 1..5 scores",
    )
    parser.add_argument(
        "--method",
        choices=METHODS,
        default=None,
        help="elo, anchored-elo or davidson (Davidson-Bradley-Terry with ties); "
        "default: anchored-elo with --anchors, elo without",
    )
    parser.add_argument("-o", "--output", metavar="FILE", help="write here (atomically) instead of stdout")
    parser.add_argument(
        "--json",
        action="store_true",
        help='print a JSON list of {"item", "latent", "score"[, "dimension"]} instead of CSV',
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Read, rank, and write; every user mistake becomes a UserError naming the line."""
    if args.output:
        check_report_target(args.output)  # before any reading: a refusal changes nothing
    method = args.method or ("anchored-elo" if args.anchors else "elo")
    comparisons, has_dimension = read_comparisons(args.comparisons)
    anchors = read_anchors(args.anchors) if args.anchors else {}
    if method == "elo" and anchors:
        raise UserError("--method elo does not use anchors; choose anchored-elo or davidson")
    if method == "anchored-elo" and not anchors:
        raise UserError("--method anchored-elo needs --anchors CSV (item,score)")
    ranked = rank_comparisons(comparisons, anchors, method)
    text = render(ranked, as_json=args.json, with_dimension=has_dimension)
    if args.output:
        write_atomically(Path(args.output), text)
    else:
        sys.stdout.write(text)
    return 0


def _open_text(path: str) -> io.TextIOBase:
    if path == "-":
        return io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8-sig", newline="")
    try:
        return open(path, encoding="utf-8-sig", newline="")
    except OSError as error:
        raise UserError(f"cannot read {path}: {error.strerror or error}") from error


def _read_rows(path: str, required: Sequence[str]) -> tuple[list[tuple[int, dict[str, str]]], list[str]]:
    """Rows with their line numbers and the normalised header; every problem names the file and line."""
    from aesthete_gui.services.csv_rows import CsvError, read_table

    stream = _open_text(path)
    try:
        return read_table(stream, path, required)
    except CsvError as error:
        raise UserError(str(error)) from error
    finally:
        if path != "-":
            stream.close()


def read_comparisons(path: str) -> tuple[dict[str | None, list[tuple[str, str, float]]], bool]:
    """Comparisons grouped by dimension (None when the file has no dimension column)."""
    rows, names = _read_rows(path, ("a", "b", "winner"))
    has_dimension = "dimension" in names
    grouped: dict[str | None, list[tuple[str, str, float]]] = {}
    for line, row in rows:
        a, b, winner = row["a"], row["b"], row["winner"].lower()
        if not a or not b:
            raise UserError(f"{path}: line {line}: both a and b must name an item")
        if a == b:
            raise UserError(f"{path}: line {line}: item {a!r} is compared with itself")
        if winner not in WINNER_SCORES:
            raise UserError(
                f"{path}: line {line}: winner must be a, b or tie, got {row['winner']!r}"
            )
        dimension: str | None = None
        if has_dimension:
            dimension = row["dimension"]
            if not dimension:
                raise UserError(f"{path}: line {line}: empty dimension")
        grouped.setdefault(dimension, []).append((a, b, WINNER_SCORES[winner]))
    if not grouped:
        raise UserError(f"{path}: no comparisons found")
    return grouped, has_dimension


def read_anchors(path: str) -> dict[str, dict[str, float]]:
    """Anchor scores per dimension ("" = every dimension): {dimension: {item: score}}."""
    rows, names = _read_rows(path, ("item", "score"))
    anchors: dict[str, dict[str, float]] = {}
    for line, row in rows:
        item = row["item"]
        if not item:
            raise UserError(f"{path}: line {line}: empty item")
        try:
            score = float(row["score"])
        except ValueError:
            raise UserError(f"{path}: line {line}: score {row['score']!r} is not a number") from None
        if not math.isfinite(score) or not 1.0 <= score <= 5.0:
            raise UserError(f"{path}: line {line}: score must lie within 1..5, got {row['score']}")
        dimension = row.get("dimension", ALL_DIMENSIONS) if "dimension" in names else ALL_DIMENSIONS
        group = anchors.setdefault(dimension, {})
        if item in group:
            raise UserError(f"{path}: line {line}: item {item!r} is anchored twice")
        group[item] = score
    if not anchors:
        raise UserError(f"{path}: no anchors found")
    return anchors


def rank_comparisons(
    comparisons: dict[str | None, list[tuple[str, str, float]]],
    anchors: dict[str, dict[str, float]],
    method: str,
) -> list[RankedItem]:
    """Latents and calibrated scores per dimension, best first within each dimension."""
    from aesthete_gui.engine.bradley_terry import fit_davidson
    from aesthete_gui.engine.calibration import (
        CalibrationError,
        fit_anchor_calibration,
        minmax_sigmoid,
    )
    from aesthete_gui.engine.elo import EloParams, elo_ratings, index_comparisons

    seen = {item for rows in comparisons.values() for a, b, _ in rows for item in (a, b)}
    unknown = sorted({item for group in anchors.values() for item in group} - seen)
    if unknown:
        raise UserError(f"anchor item(s) not found in the comparisons: {', '.join(unknown[:10])}")
    ranked: list[RankedItem] = []
    for dimension, rows in comparisons.items():
        indexed = index_comparisons(rows)
        names = list(indexed.items)
        items = {name: position for position, name in enumerate(names)}
        first, second, score = indexed.first, indexed.second, indexed.score
        group = dict(anchors.get(ALL_DIMENSIONS, {}))
        group.update(anchors.get(dimension or ALL_DIMENSIONS, {}))
        anchor_scores = {items[item]: value for item, value in group.items() if item in items}
        label = f" (dimension {dimension})" if dimension else ""
        if method == "davidson":
            latent = fit_davidson(len(names), first, second, score, anchor_scores=anchor_scores).latent
        else:
            latent = elo_ratings(
                len(names), first, second, score, EloParams(),
                anchor_scores=anchor_scores if method == "anchored-elo" else None,
            )
        if anchors:
            if len(anchor_scores) < 2:
                raise UserError(f"need at least 2 anchors that appear in the comparisons{label}")
            positions = np.array(sorted(anchor_scores))
            try:
                calibration = fit_anchor_calibration(
                    latent[positions], [anchor_scores[p] for p in positions.tolist()]
                )
            except CalibrationError as error:
                raise UserError(f"cannot calibrate on the anchors{label}: {error}") from error
            calibrated = calibration.apply(latent)
        else:
            calibrated = minmax_sigmoid(latent)
        for position in np.argsort(-calibrated, kind="stable").tolist():
            ranked.append(
                RankedItem(names[position], float(latent[position]), float(calibrated[position]), dimension)
            )
    return ranked


def render(ranked: Sequence[RankedItem], as_json: bool, with_dimension: bool) -> str:
    """CSV (item,latent,score[,dimension]) or a JSON list with the same keys."""
    if as_json:
        rows = []
        for entry in ranked:
            row: dict[str, object] = {
                "item": entry.item,
                "latent": round(entry.latent, 6),
                "score": round(entry.score, 4),
            }
            if with_dimension:
                row["dimension"] = entry.dimension
            rows.append(row)
        return json.dumps(rows, indent=2, ensure_ascii=False) + "\n"
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["item", "latent", "score", *(["dimension"] if with_dimension else [])])
    for entry in ranked:
        extra = [entry.dimension] if with_dimension else []
        writer.writerow([entry.item, f"{entry.latent:.6f}", f"{entry.score:.4f}", *extra])
    return buffer.getvalue()


def write_atomically(path: Path, text: str) -> None:
    """Write `text` to a temporary file beside `path`, then rename it over `path`: a reader sees the
    old file or the complete new one, never a partial write."""
    try:
        write_report(path, text)
    except OSError as error:
        raise UserError(f"cannot write {path}: {error.strerror or error}") from error
