"""JSON shapes of the taste and distillation services' results: the CLI's output, keyed by path."""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from aesthete_gui.services.distill import DistillSummary
    from aesthete_gui.services.taste import (
        AdapterFigures,
        Ranking,
        SuggestedPair,
        TasteReport,
    )
    from aesthete_gui.store import Profile


def report_json(report: TasteReport) -> dict[str, Any]:
    """`taste train --json`: a training report; agreements null when too few choices were held out."""
    return report.as_dict()


def adapter_json(adapter: AdapterFigures) -> dict[str, Any]:
    """`taste list --json`: one adapter with its held-out figures and every stored metric."""
    from aesthete_gui.services.taste import Agreement

    return {
        "name": adapter.name,
        "base_scorer": adapter.base_scorer,
        "active": adapter.active,
        "held_out": adapter.held_out,
        "base_agreement": Agreement.rounded(adapter.base),
        "adapter_agreement": Agreement.rounded(adapter.adapter),
        "metrics": dict(adapter.metrics),
    }


def ranking_json(ranking: Ranking, paths: dict[int, str]) -> list[dict[str, Any]]:
    """`rank-images --json`: the ranked images, best first, with their paths."""
    return [
        {
            "path": paths[item.image_id],
            "score": round(item.score, 4),
            "base_score": round(item.base_score, 4),
            "image_id": item.image_id,
            "scorer": ranking.scorer,
            "adapter": ranking.adapter,
        }
        for item in ranking.images
    ]


def suggestions_json(pairs: list[SuggestedPair], paths: dict[int, str]) -> list[dict[str, Any]]:
    """`taste suggest --json`: the pairs to judge next, by path."""
    return [
        {"a": paths[p.a], "b": paths[p.b], "information": round(p.information, 6), "dimension": p.dimension}
        for p in pairs
    ]


def distill_json(summary: DistillSummary, paths: dict[int, str]) -> dict[str, Any]:
    """`distill --json`: the run, its counts, the images left unscored (by path) and the student."""
    result: dict[str, Any] = {
        "run_id": summary.run_id,
        "pseudo_scores": summary.pseudo_scores,
        "images": summary.images,
        "scored": summary.scored,
        "pool": summary.pool,
        "calls_planned": summary.calls_planned,
        "calls_made": summary.calls_made,
        "calls_reused": summary.calls_reused,
        "asked": summary.asked,
        "parsed": summary.parsed,
        "failed": summary.failed,
        "unparsed": summary.unparsed,
        "unscored": [
            {"path": paths[u.image_id], "parsed_comparisons": dict(u.parsed_comparisons), "needs": u.needs}
            for u in summary.unscored
        ],
        "options": asdict(summary.options),
    }
    if summary.student is not None:
        student = summary.student
        result["student"] = {"name": student.scorer_id, "images": student.images, "metrics": dict(student.metrics)}
    return result


def image_paths(profile: Profile) -> dict[int, str]:
    """Every image path of the profile by id, for the shapes that print paths."""
    return {record.id: record.path for record in profile.catalog.images()}
