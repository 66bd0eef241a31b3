"""One contract for every judge backend: local transformers (tiny Qwen2.5-VL, Qwen3-VL) and a remote server.

The local judges run real tiny models with random weights, so their text is nonsense and every
record must come back unparsed with the raw text kept. The remote judge talks to a server on
127.0.0.1 that answers each protocol correctly, so its records must come back parsed.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from aesthete_gui.engine.dimensions import DIMENSIONS
from aesthete_gui.engine.judgments import Judge
from aesthete_gui.engine.prompts import PromptBook
from aesthete_gui.jobs import Cancelled, CancelToken, Progress
from aesthete_gui.ml.prompt_judge import PromptJudge, StageEvent, is_failure
from aesthete_gui.ml.remote import RemoteJudge
from aesthete_gui.ml.vlm import LocalVLMJudge
from tests.ml.chat_server import ChatServer

BACKENDS = ["local-qwen2.5-vl", "local-qwen3-vl", "remote"]


@pytest.fixture(scope="module")
def server() -> Iterator[ChatServer]:
    with ChatServer() as running:
        yield running


@pytest.fixture(params=BACKENDS)
def make_judge(request: pytest.FixtureRequest, server: ChatServer):
    """A factory: make_judge(**options) -> a judge of the parametrised backend."""
    kind = request.param

    def factory(**options: object) -> PromptJudge:
        if kind == "remote":
            return RemoteJudge(server.base_url, "scripted-vl", backoff_s=0.01, **options)
        loaded = request.getfixturevalue("loaded_tiny_vlms")[kind.removeprefix("local-")]
        brief = PromptBook.for_preset("photography", rubric_levels=False)
        return LocalVLMJudge(loaded.path, loaded=loaded, max_new_tokens=12, prompts=brief, **options)

    factory.kind = kind  # type: ignore[attr-defined]
    return factory


def _expect_parsed(factory) -> bool:
    return factory.kind == "remote"


def test_is_a_judge(make_judge) -> None:
    judge = make_judge()
    assert isinstance(judge, Judge)
    assert judge.judge_id.startswith(("local:", "remote:"))


def test_pairwise_records_in_request_order(make_judge, photo_paths: list[str]) -> None:
    judge = make_judge(batch_size=2) if make_judge.kind != "remote" else make_judge()
    pairs = [(photo_paths[0], photo_paths[1]), (photo_paths[2], photo_paths[3]), (photo_paths[4], photo_paths[5])]
    seen: list[Progress] = []
    records = judge.judge_pairs(pairs, progress=seen.append)
    assert [(r.first, r.second) for r in records] == pairs
    assert seen[-1].done == seen[-1].total == 3
    for record in records:
        assert set(record.outcome) == set(DIMENSIONS)
        assert set(record.outcome.values()) <= {"A", "B", "TIE", None}
        assert record.raw
        assert record.judge_id == judge.judge_id
        assert not is_failure(record)
        assert record.parsed == _expect_parsed(make_judge)
        if not record.parsed:
            assert set(record.outcome.values()) == {None}
    if _expect_parsed(make_judge):
        assert records[0].outcome["coloration"] == "B"
        assert records[0].rationale == "A is sharper."


def test_pointwise_scores_in_range_or_none(make_judge, photo_paths: list[str]) -> None:
    records = make_judge().score_items(photo_paths[:3])
    assert [r.item for r in records] == photo_paths[:3]
    for record in records:
        assert record.raw
        assert record.parsed == _expect_parsed(make_judge)
        for value in record.scores.values():
            assert value is None or 1.0 <= value <= 5.0
    if _expect_parsed(make_judge):
        assert records[0].scores["technique"] == 4.5


def test_both_orders_reports_consistency(make_judge, photo_paths: list[str]) -> None:
    judge = make_judge(both_orders=True)
    [record] = judge.judge_pairs([(photo_paths[0], photo_paths[1])])
    assert record.first == photo_paths[0]
    assert record.reverse_raw
    if _expect_parsed(make_judge):
        # The scripted server always says technique "A": first in one order, second in the other.
        assert record.outcome["technique"] == "TIE"
        assert record.outcome["composition"] == "TIE"
        assert record.consistency == pytest.approx(1 / 5)
    else:
        assert record.consistency is None
        assert not record.parsed


def test_set_selection_votes_over_orderings(make_judge, photo_paths: list[str]) -> None:
    judge = make_judge(set_orderings=3, seed=5)
    sets = [photo_paths[:4], photo_paths[4:7]]
    records = judge.select_best_worst(sets)
    assert [r.items for r in records] == [tuple(s) for s in sets]
    for record, items in zip(records, sets, strict=True):
        assert len(record.orderings) == 3
        assert record.orderings[0] == tuple(items)
        assert sorted(record.orderings[1]) == sorted(items)
        assert record.parsed == _expect_parsed(make_judge)
        if record.parsed:
            assert record.best in items and record.worst in items
            assert record.best != record.worst
        else:
            assert record.best is None and record.worst is None


def test_explanation_runs_three_stages_fed_forward(make_judge, photo_paths: list[str]) -> None:
    events: list[StageEvent] = []
    judge = make_judge(on_stage=events.append)
    seen: list[Progress] = []
    [record] = judge.select_best_worst([photo_paths[:3]], explain=True, progress=seen.append)
    assert [e.stage for e in events] == ["analyser", "critic", "summariser"]
    assert len(record.stages) == 3
    assert seen[-1].done == seen[-1].total == 3
    if _expect_parsed(make_judge):
        assert record.stages[0].startswith("Image 1 is sharp")
        assert record.best == photo_paths[0]
        assert record.worst == photo_paths[1]
    else:
        assert not record.parsed


def test_unreadable_image_is_recorded_not_raised(make_judge, photo_paths: list[str], tmp_path: Path) -> None:
    broken = tmp_path / "broken.jpg"
    broken.write_bytes(b"\xff\xd8\xff\xe0 not really a jpeg")
    records = make_judge().judge_pairs([(str(broken), photo_paths[0]), (photo_paths[1], photo_paths[2])])
    assert not records[0].parsed
    assert is_failure(records[0])
    assert "image unreadable" in records[0].rationale
    assert records[1].raw


def test_cancel_before_start_raises(make_judge, photo_paths: list[str]) -> None:
    token = CancelToken()
    token.cancel()
    with pytest.raises(Cancelled):
        make_judge().score_items(photo_paths[:2], cancel=token)


def test_local_judge_halves_the_batch_when_the_device_runs_out_of_memory(
    loaded_tiny_vlms: dict, photo_paths: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import torch

    from aesthete_gui.ml import vlm

    loaded = loaded_tiny_vlms["qwen2.5-vl"]
    real = vlm.generate_batch
    sizes: list[int] = []

    def limited(loaded_model, batch, max_new_tokens=None):
        sizes.append(len(batch))
        if len(batch) > 1:  # the device only fits one request at a time
            raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB")
        return real(loaded_model, batch, max_new_tokens)

    monkeypatch.setattr(vlm, "generate_batch", limited)
    judge = LocalVLMJudge(loaded.path, loaded=loaded, batch_size=4, max_new_tokens=4)
    records = judge.score_items(photo_paths[:3])
    assert [r.item for r in records] == photo_paths[:3]
    assert all(r.raw for r in records)
    assert judge.batch_size == 1
    assert sizes[:3] == [3, 1, 1]
