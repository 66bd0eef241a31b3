"""Protocol logic shared by the judges: order combination, voting, stage chaining (scripted backend)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest

from aesthete_gui.engine.dimensions import DIMENSIONS
from aesthete_gui.engine.judgments import PairwiseJudgment
from aesthete_gui.engine.prompts import PromptBook
from aesthete_gui.jobs import CancelToken
from aesthete_gui.ml.prompt_judge import (
    NO_ANSWER,
    ChatRequest,
    PromptJudge,
    Reply,
    StageEvent,
    combine_orders,
    is_failure,
)


class ScriptedJudge(PromptJudge):
    """A judge whose model is a function of the request (the edge of the world, scripted)."""

    judge_id = "scripted"

    def __init__(self, answer: Callable[[ChatRequest], Reply], **options: object) -> None:
        super().__init__(PromptBook.for_preset("photography"), **options)
        self.answer = answer
        self.requests: list[ChatRequest] = []

    def _complete(
        self, requests: Sequence[ChatRequest], advance: Callable[[int], None], cancel: CancelToken | None
    ) -> list[Reply]:
        self.requests.extend(requests)
        advance(len(requests))
        return [self.answer(r) for r in requests]


def _pair(outcome: dict, first: str = "x", second: str = "y") -> PairwiseJudgment:
    return PairwiseJudgment(first, second, {d: outcome.get(d) for d in DIMENSIONS}, True, "raw")


def test_combine_orders_agreement_contradiction_and_missing() -> None:
    forward = _pair({"technique": "A", "coloration": "A", "composition": "TIE", "mood": "B"})
    # Seen with y first: y wins technique (contradiction), x wins coloration (agreement).
    reverse = _pair({"technique": "A", "coloration": "B", "composition": "TIE", "overall": "B"}, "y", "x")
    combined = combine_orders(forward, reverse)
    assert combined.outcome == {
        "technique": "TIE", "coloration": "A", "composition": "TIE", "mood": "B", "overall": "A",
    }  # fmt: skip
    assert combined.consistency == pytest.approx(2 / 3)
    assert combined.first == "x"
    assert combined.reverse_raw == "raw"


def test_pairs_in_both_orders_send_swapped_requests() -> None:
    judge = ScriptedJudge(lambda r: Reply('{"overall": "A"}'), both_orders=True)
    [record] = judge.judge_pairs([("p.jpg", "q.jpg")])
    assert [r.images for r in judge.requests] == [("p.jpg", "q.jpg"), ("q.jpg", "p.jpg")]
    # The judge always prefers the image shown first: pure position bias, so a TIE and 0% consistency.
    assert record.outcome["overall"] == "TIE"
    assert record.consistency == 0.0


def test_vote_majority_and_strict_agreement() -> None:
    items = ["a", "b", "c", "d"]

    def answer(request: ChatRequest) -> Reply:
        # Always names image "a" best and "d" worst wherever they are shown, except in one ordering.
        order = list(request.images)
        if order[0] == "d":
            return Reply('{"best": 2, "worst": 1}')
        return Reply(f'{{"best": {order.index("a") + 1}, "worst": {order.index("d") + 1}}}')

    judge = ScriptedJudge(answer, set_orderings=5, seed=3)
    [record] = judge.select_best_worst([items])
    assert record.best == "a"
    assert record.worst == "d"
    assert len(set(record.orderings)) == 5
    assert record.all_orderings_agree == all(v == ("a", "d") for v in record.votes)


def test_orderings_are_seeded_and_limited_by_set_size() -> None:
    judge = ScriptedJudge(lambda r: Reply(""), set_orderings=10, seed=1)
    assert len(judge.orderings_for(["a", "b"])) == 2  # only two orders exist
    assert judge.orderings_for(["a", "b", "c"], 0) == judge.orderings_for(["a", "b", "c"], 0)
    with pytest.raises(ValueError):
        ScriptedJudge(lambda r: Reply(""), set_orderings=0)


def test_stage_chaining_feeds_outputs_forward_and_streams() -> None:
    def answer(request: ChatRequest) -> Reply:
        protocol = request.prompt.protocol
        if protocol == "analyser":
            return Reply("<think>Image 2 has a blown sky.</think>")
        if protocol == "critic":
            assert "Image 2 has a blown sky." in request.prompt.text
            return Reply("Image 1 is also tilted.")
        assert "Image 1 is also tilted." in request.prompt.text
        return Reply('<answer>{"best": 3, "worst": 2}</answer>')

    events: list[StageEvent] = []
    judge = ScriptedJudge(answer, on_stage=events.append)
    [record] = judge.select_best_worst([["a", "b", "c"]], explain=True)
    assert record.stages == ("Image 2 has a blown sky.", "Image 1 is also tilted.", '<answer>{"best": 3, "worst": 2}</answer>')
    assert (record.best, record.worst) == ("c", "b")
    assert [e.stage for e in events] == ["analyser", "critic", "summariser"]


def test_no_answer_is_a_recorded_failure_not_a_verdict() -> None:
    judge = ScriptedJudge(lambda r: Reply(None, "HTTP 503 (4 attempts)"))
    [pair] = judge.judge_pairs([("a", "b")])
    [score] = judge.score_items(["a"])
    [chosen] = judge.select_best_worst([["a", "b"]])
    for record in (pair, score, chosen):
        assert is_failure(record)
        assert record.rationale == NO_ANSWER + "HTTP 503 (4 attempts)"
    assert chosen.best is None


def test_backend_must_return_one_reply_per_request() -> None:
    class Broken(ScriptedJudge):
        def _complete(self, requests, advance, cancel):
            return []

    with pytest.raises(RuntimeError, match="different number"):
        Broken(lambda r: Reply("")).score_items(["a"])


def test_per_dimension_best_worst_are_voted_in_item_terms() -> None:
    def answer(request: ChatRequest) -> Reply:
        assert '"mood": {"best"' in request.prompt.text
        order = list(request.images)
        a, b, c = (order.index(x) + 1 for x in ("a", "b", "c"))
        return Reply(
            f'{{"best": {a}, "worst": {c}, "technique": {{"best": {b}, "worst": {a}}}, "mood": {{"best": {c}}}}}'
        )

    judge = ScriptedJudge(answer, set_orderings=3, set_per_dimension=True)
    [record] = judge.select_best_worst([["a", "b", "c"]])
    assert (record.best, record.worst) == ("a", "c")
    assert record.per_dimension["technique"] == ("b", "a")
    assert record.per_dimension["mood"] == ("c", None)
