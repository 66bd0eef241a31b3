"""Choices, judgments (round trip of the engine's records), scores, runs and adapters."""

from __future__ import annotations

import pytest

from aesthete_gui.engine.judgments import PairwiseJudgment, PointwiseJudgment, SetJudgment
from aesthete_gui.store import Profile


def test_choices_in_time_order_with_paths_and_app_state(profile: Profile) -> None:
    a, b = profile.catalog.ensure_image("/a.jpg"), profile.catalog.ensure_image("/b.jpg")
    first = profile.choices.add(a, b, "a", session="s1", app_state={"left": "/a.jpg", "zoom": 1})
    second = profile.choices.add("/b.jpg", "/c.jpg", "tie", dimension="mood")
    choices = profile.choices.all()
    assert [c.id for c in choices] == [first, second]
    assert choices[0].winner_id == a and choices[0].app_state == {"left": "/a.jpg", "zoom": 1}
    assert (choices[1].path_a, choices[1].path_b, choices[1].winner_id) == ("/b.jpg", "/c.jpg", None)
    assert [c.id for c in profile.choices.all("mood")] == [second]
    assert profile.choices.delete(first) is True
    assert profile.choices.delete(first) is False
    assert [c.id for c in profile.choices.all()] == [second]


@pytest.mark.parametrize(
    ("args", "message"),
    [(("/a.jpg", "/b.jpg", "left"), "winner"), (("/a.jpg", "/a.jpg", "a"), "two different"),
     (("/a.jpg", "/b.jpg", "a", "sharpness"), "dimension")],
)  # fmt: skip
def test_bad_choices_are_refused(profile: Profile, args: tuple, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        profile.choices.add(*args)
    assert profile.choices.all() == []


def test_add_choices_writes_every_row_in_one_transaction(profile: Profile) -> None:
    a, b, c = (profile.catalog.ensure_image(p) for p in ("/a.jpg", "/b.jpg", "/c.jpg"))
    statements: list[str] = []
    profile.conn.set_trace_callback(statements.append)
    try:
        rows = [(a, b, "a", "overall"), (b, c, "tie", "mood"), (c, a, "b", "overall")]
        ids = profile.choices.add_many(rows, session="csv")
    finally:
        profile.conn.set_trace_callback(None)
    transaction = [s for s in statements if s in ("BEGIN IMMEDIATE", "COMMIT")]
    assert transaction == ["BEGIN IMMEDIATE", "COMMIT"]
    assert [ch.id for ch in profile.choices.all()] == ids
    assert {ch.session for ch in profile.choices.all()} == {"csv"}
    with pytest.raises(ValueError, match="winner"):
        profile.choices.add_many([(a, b, "a", "overall"), (b, c, "left", "overall")])
    assert profile.choices.count() == 3


def test_put_scores_many_writes_every_image_in_one_transaction(profile: Profile) -> None:
    a, b = profile.catalog.ensure_image("/a.jpg"), profile.catalog.ensure_image("/b.jpg")
    profile.scores.put(a, "bridge", {"overall": 1.0})
    statements: list[str] = []
    profile.conn.set_trace_callback(statements.append)
    try:
        batch = [(a, {"overall": 2.0}), (b, {"mood": 3.0, "overall": None})]
        profile.scores.put_many("bridge", batch, scorer_version="run-1", preset="photo")
    finally:
        profile.conn.set_trace_callback(None)
    transaction = [s for s in statements if s in ("BEGIN IMMEDIATE", "COMMIT")]
    assert transaction == ["BEGIN IMMEDIATE", "COMMIT"]
    assert profile.scores.of_scorer("bridge") == {a: {"overall": 2.0}, b: {"mood": 3.0}}
    assert profile.scores.provenance(b, "bridge") == {
        "scorer_version": "run-1", "preset": "photo", "preset_version": ""
    }  # fmt: skip
    with pytest.raises(ValueError, match="unknown dimensions"):
        profile.scores.put_many("bridge", [(a, {"overall": 5.0}), (b, {"beauty": 1.0})])
    assert profile.scores.of_scorer("bridge")[a] == {"overall": 2.0}


def test_judgments_round_trip_all_three_protocols(profile: Profile) -> None:
    run_id = profile.runs.create("bridge", {"judge": "tiny"})
    pair = PairwiseJudgment(
        "/a.jpg", "/b.jpg",
        outcome={"technique": "A", "coloration": "TIE", "composition": None, "mood": "B", "overall": "A"},
        raw="A is sharper", judge_id="tiny-vlm", rationale="sharp", seconds=0.5,
    )  # fmt: skip
    unparsed = PairwiseJudgment("/b.jpg", "/a.jpg", outcome=dict.fromkeys(pair.outcome),
                                parsed=False, raw="I cannot say", judge_id="tiny-vlm")  # fmt: skip
    point = PointwiseJudgment(
        "/a.jpg",
        scores={"technique": 4.5, "coloration": 3.0, "composition": None, "mood": 2.0, "overall": 3.5},
        judge_id="tiny-vlm",
    )
    chosen = SetJudgment(
        ("/a.jpg", "/b.jpg", "/c.jpg"), best="/c.jpg", worst="/a.jpg",
        per_dimension={"mood": ("/b.jpg", "/a.jpg"), "technique": ("/c.jpg", None)},
        judge_id="remote", rationale="c wins", stages=("look", "critique", "sum"), seconds=2.0,
    )  # fmt: skip
    ids = [profile.judgments.add(pair, run_id=run_id, preset="photo", preset_version="1")]
    ids += [profile.judgments.add(r) for r in (unparsed, point, chosen)]
    assert profile.judgments.records() == [pair, unparsed, point, chosen]
    assert profile.judgments.records(run_id=run_id) == [pair]
    assert profile.judgments.records(protocol="set") == [chosen]
    stored = profile.judgments.stored(protocol="pairwise")
    assert [s.id for s in stored] == ids[:2]
    assert (stored[0].preset, stored[0].preset_version, stored[0].run_id) == ("photo", "1", run_id)
    with pytest.raises(TypeError):
        profile.judgments.add("not a record")  # type: ignore[arg-type]


def test_scores_unique_per_image_and_scorer(profile: Profile) -> None:
    a = profile.catalog.ensure_image("/a.jpg")
    profile.scores.put(a, "builtin", {"overall": 3.0, "mood": 2.0}, scorer_version="1")
    profile.scores.put(a, "builtin", {"overall": 4.0}, scorer_version="2", preset="photo")
    profile.scores.put("/b.jpg", "vlm", {"technique": 5.0})
    assert profile.scores.of_scorer("builtin") == {a: {"overall": 4.0}}
    assert list(profile.scores.of_scorer("vlm").values()) == [{"technique": 5.0}]
    assert profile.scores.scorers() == ["builtin", "vlm"]
    assert profile.scores.provenance(a, "builtin") == {"scorer_version": "2", "preset": "photo", "preset_version": ""}
    assert profile.scores.provenance(a, "vlm") is None
    with pytest.raises(ValueError, match="unknown dimensions"):
        profile.scores.put(a, "builtin", {"beauty": 1.0})


def test_runs_progress_and_result(profile: Profile) -> None:
    run_id = profile.runs.create("distill", {"epochs": 3})
    profile.runs.update(run_id, done=1, total=3)
    run = profile.runs.get(run_id)
    assert (run.kind, run.params, run.status, run.done, run.total) == ("distill", {"epochs": 3}, "running", 1, 3)
    assert run.finished_at is None
    profile.runs.update(run_id, status="done", done=3, result={"srcc": 0.71})
    run = profile.runs.get(run_id)
    assert run.result == {"srcc": 0.71} and run.finished_at is not None
    other = profile.runs.create("bridge")
    assert [r.id for r in profile.runs.all()] == [run_id, other]
    assert [r.id for r in profile.runs.all("bridge")] == [other]
    assert profile.runs.get(9999) is None
    with pytest.raises(KeyError):
        profile.runs.update(9999, status="done")


def test_adapters_one_active(profile: Profile) -> None:
    first = profile.adapters.save("mine", "builtin", b"\x00\x01", {"agreement": 0.78})
    second = profile.adapters.save("other", "builtin", b"\x02")
    assert profile.adapters.active() is None
    profile.adapters.set_active("mine")
    profile.adapters.set_active("other")
    assert profile.adapters.active().id == second
    assert [a.active for a in profile.adapters.all()] == [False, True]
    # Saving again under the same name replaces the blob and keeps id and active state.
    assert profile.adapters.save("other", "builtin", b"\x03", {"agreement": 0.8}) == second
    assert profile.adapters.get("other").blob == b"\x03" and profile.adapters.get("other").active
    assert profile.adapters.get("mine").metrics == {"agreement": 0.78} and first != second
    with pytest.raises(KeyError):
        profile.adapters.set_active("nobody")
    assert profile.adapters.active().name == "other"  # the failed call changed nothing
    profile.adapters.set_active(None)
    assert profile.adapters.active() is None


def test_latest_explained_judgment_finds_the_newest_explanation_of_an_item(profile: Profile) -> None:
    profile.judgments.add(PairwiseJudgment("/a.jpg", "/b.jpg", rationale="a is sharper"))
    profile.judgments.add(PairwiseJudgment("/a.jpg", "/c.jpg"))  # no explanation
    profile.judgments.add(SetJudgment(("/c.jpg", "/a.jpg"), best="/a.jpg", worst="/c.jpg", stages=("facts", "critique", "verdict")))
    newest = profile.judgments.latest_explained("/a.jpg")
    assert isinstance(newest, SetJudgment) and newest.stages == ("facts", "critique", "verdict")
    assert profile.judgments.latest_explained("/b.jpg").rationale == "a is sharper"
    assert profile.judgments.latest_explained("/d.jpg") is None


def test_judged_pairs_and_counts_read_only_ids(profile: Profile) -> None:
    a, b, c = (profile.catalog.ensure_image(p) for p in ("/a.jpg", "/b.jpg", "/c.jpg"))
    profile.choices.add(a, b, "a")
    profile.choices.add(c, a, "tie", dimension="mood")
    assert profile.choices.judged_pairs() == {frozenset((a, b)), frozenset((a, c))}
    assert profile.choices.judged_pairs("mood") == {frozenset((a, c))}
    assert (profile.choices.count(), profile.choices.count("overall"), profile.choices.count("mood")) == (2, 1, 1)
    assert profile.catalog.image_ids() == [a, b, c]
