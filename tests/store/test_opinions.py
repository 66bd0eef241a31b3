"""Choices, judgments (round trip of the engine's records), scores, runs and adapters."""

from __future__ import annotations

import pytest

from aesthete_gui.engine.judgments import PairwiseJudgment, PointwiseJudgment, SetJudgment
from aesthete_gui.store import Profile


def test_choices_in_time_order_with_paths_and_app_state(profile: Profile) -> None:
    a, b = profile.ensure_image("/a.jpg"), profile.ensure_image("/b.jpg")
    first = profile.add_choice(a, b, "a", session="s1", app_state={"left": "/a.jpg", "zoom": 1})
    second = profile.add_choice("/b.jpg", "/c.jpg", "tie", dimension="mood")
    choices = profile.choices()
    assert [c.id for c in choices] == [first, second]
    assert choices[0].winner_id == a and choices[0].app_state == {"left": "/a.jpg", "zoom": 1}
    assert (choices[1].path_a, choices[1].path_b, choices[1].winner_id) == ("/b.jpg", "/c.jpg", None)
    assert [c.id for c in profile.choices("mood")] == [second]
    assert profile.delete_choice(first) is True
    assert profile.delete_choice(first) is False
    assert [c.id for c in profile.choices()] == [second]


@pytest.mark.parametrize(
    ("args", "message"),
    [(("/a.jpg", "/b.jpg", "left"), "winner"), (("/a.jpg", "/a.jpg", "a"), "two different"),
     (("/a.jpg", "/b.jpg", "a", "sharpness"), "dimension")],
)  # fmt: skip
def test_bad_choices_are_refused(profile: Profile, args: tuple, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        profile.add_choice(*args)
    assert profile.choices() == []


def test_add_choices_writes_every_row_in_one_transaction(profile: Profile) -> None:
    a, b, c = (profile.ensure_image(p) for p in ("/a.jpg", "/b.jpg", "/c.jpg"))
    statements: list[str] = []
    profile.conn.set_trace_callback(statements.append)
    try:
        rows = [(a, b, "a", "overall"), (b, c, "tie", "mood"), (c, a, "b", "overall")]
        ids = profile.add_choices(rows, session="csv")
    finally:
        profile.conn.set_trace_callback(None)
    transaction = [s for s in statements if s in ("BEGIN IMMEDIATE", "COMMIT")]
    assert transaction == ["BEGIN IMMEDIATE", "COMMIT"]
    assert [ch.id for ch in profile.choices()] == ids
    assert {ch.session for ch in profile.choices()} == {"csv"}
    with pytest.raises(ValueError, match="winner"):
        profile.add_choices([(a, b, "a", "overall"), (b, c, "left", "overall")])
    assert profile.choice_count() == 3


def test_put_scores_many_writes_every_image_in_one_transaction(profile: Profile) -> None:
    a, b = profile.ensure_image("/a.jpg"), profile.ensure_image("/b.jpg")
    profile.put_scores(a, "bridge", {"overall": 1.0})
    statements: list[str] = []
    profile.conn.set_trace_callback(statements.append)
    try:
        batch = [(a, {"overall": 2.0}), (b, {"mood": 3.0, "overall": None})]
        profile.put_scores_many("bridge", batch, scorer_version="run-1", preset="photo")
    finally:
        profile.conn.set_trace_callback(None)
    transaction = [s for s in statements if s in ("BEGIN IMMEDIATE", "COMMIT")]
    assert transaction == ["BEGIN IMMEDIATE", "COMMIT"]
    assert profile.scores("bridge") == {a: {"overall": 2.0}, b: {"mood": 3.0}}
    assert profile.score_provenance(b, "bridge") == {
        "scorer_version": "run-1", "preset": "photo", "preset_version": ""
    }  # fmt: skip
    with pytest.raises(ValueError, match="unknown dimensions"):
        profile.put_scores_many("bridge", [(a, {"overall": 5.0}), (b, {"beauty": 1.0})])
    assert profile.scores("bridge")[a] == {"overall": 2.0}


def test_judgments_round_trip_all_three_protocols(profile: Profile) -> None:
    run_id = profile.create_run("bridge", {"judge": "tiny"})
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
    ids = [profile.add_judgment(pair, run_id=run_id, preset="photo", preset_version="1")]
    ids += [profile.add_judgment(r) for r in (unparsed, point, chosen)]
    assert profile.judgments() == [pair, unparsed, point, chosen]
    assert profile.judgments(run_id=run_id) == [pair]
    assert profile.judgments(protocol="set") == [chosen]
    stored = profile.stored_judgments(protocol="pairwise")
    assert [s.id for s in stored] == ids[:2]
    assert (stored[0].preset, stored[0].preset_version, stored[0].run_id) == ("photo", "1", run_id)
    with pytest.raises(TypeError):
        profile.add_judgment("not a record")  # type: ignore[arg-type]


def test_scores_unique_per_image_and_scorer(profile: Profile) -> None:
    a = profile.ensure_image("/a.jpg")
    profile.put_scores(a, "builtin", {"overall": 3.0, "mood": 2.0}, scorer_version="1")
    profile.put_scores(a, "builtin", {"overall": 4.0}, scorer_version="2", preset="photo")
    profile.put_scores("/b.jpg", "vlm", {"technique": 5.0})
    assert profile.scores("builtin") == {a: {"overall": 4.0}}
    assert list(profile.scores("vlm").values()) == [{"technique": 5.0}]
    assert profile.scorers() == ["builtin", "vlm"]
    assert profile.score_provenance(a, "builtin") == {"scorer_version": "2", "preset": "photo", "preset_version": ""}
    assert profile.score_provenance(a, "vlm") is None
    with pytest.raises(ValueError, match="unknown dimensions"):
        profile.put_scores(a, "builtin", {"beauty": 1.0})


def test_runs_progress_and_result(profile: Profile) -> None:
    run_id = profile.create_run("distill", {"epochs": 3})
    profile.update_run(run_id, done=1, total=3)
    run = profile.run(run_id)
    assert (run.kind, run.params, run.status, run.done, run.total) == ("distill", {"epochs": 3}, "running", 1, 3)
    assert run.finished_at is None
    profile.update_run(run_id, status="done", done=3, result={"srcc": 0.71})
    run = profile.run(run_id)
    assert run.result == {"srcc": 0.71} and run.finished_at is not None
    other = profile.create_run("bridge")
    assert [r.id for r in profile.runs()] == [run_id, other]
    assert [r.id for r in profile.runs("bridge")] == [other]
    assert profile.run(9999) is None
    with pytest.raises(KeyError):
        profile.update_run(9999, status="done")


def test_adapters_one_active(profile: Profile) -> None:
    first = profile.save_adapter("mine", "builtin", b"\x00\x01", {"agreement": 0.78})
    second = profile.save_adapter("other", "builtin", b"\x02")
    assert profile.active_adapter() is None
    profile.set_active_adapter("mine")
    profile.set_active_adapter("other")
    assert profile.active_adapter().id == second
    assert [a.active for a in profile.adapters()] == [False, True]
    # Saving again under the same name replaces the blob and keeps id and active state.
    assert profile.save_adapter("other", "builtin", b"\x03", {"agreement": 0.8}) == second
    assert profile.adapter("other").blob == b"\x03" and profile.adapter("other").active
    assert profile.adapter("mine").metrics == {"agreement": 0.78} and first != second
    with pytest.raises(KeyError):
        profile.set_active_adapter("nobody")
    assert profile.active_adapter().name == "other"  # the failed call changed nothing
    profile.set_active_adapter(None)
    assert profile.active_adapter() is None


def test_latest_explained_judgment_finds_the_newest_explanation_of_an_item(profile: Profile) -> None:
    profile.add_judgment(PairwiseJudgment("/a.jpg", "/b.jpg", rationale="a is sharper"))
    profile.add_judgment(PairwiseJudgment("/a.jpg", "/c.jpg"))  # no explanation
    profile.add_judgment(SetJudgment(("/c.jpg", "/a.jpg"), best="/a.jpg", worst="/c.jpg", stages=("facts", "critique", "verdict")))
    newest = profile.latest_explained_judgment("/a.jpg")
    assert isinstance(newest, SetJudgment) and newest.stages == ("facts", "critique", "verdict")
    assert profile.latest_explained_judgment("/b.jpg").rationale == "a is sharper"
    assert profile.latest_explained_judgment("/d.jpg") is None


def test_judged_pairs_and_counts_read_only_ids(profile: Profile) -> None:
    a, b, c = (profile.ensure_image(p) for p in ("/a.jpg", "/b.jpg", "/c.jpg"))
    profile.add_choice(a, b, "a")
    profile.add_choice(c, a, "tie", dimension="mood")
    assert profile.judged_pairs() == {frozenset((a, b)), frozenset((a, c))}
    assert profile.judged_pairs("mood") == {frozenset((a, c))}
    assert (profile.choice_count(), profile.choice_count("overall"), profile.choice_count("mood")) == (2, 1, 1)
    assert profile.image_ids() == [a, b, c]
