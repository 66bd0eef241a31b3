"""The CLI's JSON shape of a distillation summary: images left unscored appear by path."""

from __future__ import annotations

from aesthete_gui.cli.taste_json import distill_json
from aesthete_gui.services.distill import (
    DistillOptions,
    DistillSummary,
    StudentSummary,
    UnscoredImage,
)


def test_distill_json_names_unscored_images_by_path_and_keeps_the_student_keys() -> None:
    summary = DistillSummary(
        run_id=3, pseudo_scores="bridge:j", images=5, scored=4, pool=5, calls_planned=10, calls_made=9,
        calls_reused=1, asked=10, parsed=9, failed=0, unparsed=1,
        unscored=(UnscoredImage(7, {"overall": 2}, 3),), options=DistillOptions(pool=5, refs=3),
        student=StudentSummary("student:s", 4, {"train": {"mae": 0.2}}),
    )  # fmt: skip
    shaped = distill_json(summary, {7: "/photos/seven.jpg"})
    assert list(shaped) == [
        "run_id", "pseudo_scores", "images", "scored", "pool", "calls_planned", "calls_made", "calls_reused",
        "asked", "parsed", "failed", "unparsed", "unscored", "options", "student",
    ]  # fmt: skip
    assert shaped["unscored"] == [{"path": "/photos/seven.jpg", "parsed_comparisons": {"overall": 2}, "needs": 3}]
    assert shaped["student"] == {"name": "student:s", "images": 4, "metrics": {"train": {"mae": 0.2}}}
    assert shaped["options"]["refs"] == 3
    assert "student" not in distill_json(DistillSummary(**{**summary.__dict__, "student": None}), {7: "x"})
