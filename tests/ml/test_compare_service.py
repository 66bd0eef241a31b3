"""services.compare: judgments stored in a real profile the moment they return, with versions."""

from __future__ import annotations

from pathlib import Path

import pytest

from aesthete_gui.ml.prompt_judge import JudgeUnavailable
from aesthete_gui.services.compare import (
    JudgeSpec,
    compare_pair,
    compare_set,
    explanation_subjectivity,
    open_judge,
    score_pointwise,
)
from aesthete_gui.store import open_profile
from tests.ml.chat_server import Action, ChatServer


def test_pair_set_and_scores_are_stored(photo_paths: list[str], tmp_path: Path) -> None:
    profile = open_profile(tmp_path / "profile.db")
    with ChatServer() as server:
        judge = open_judge(JudgeSpec("scripted", endpoint=server.base_url, preset="painting"))
        pair = compare_pair(judge, photo_paths[0], photo_paths[1], profile=profile)
        chosen = compare_set(judge, photo_paths[:3], explain=True, profile=profile)
        [scored] = score_pointwise(judge, photo_paths[:1], profile=profile)
    assert pair.parsed and chosen.parsed and scored.parsed
    stored = profile.judgments.stored()
    assert [s.protocol for s in stored] == ["pairwise", "set", "pointwise"]
    assert {s.preset for s in stored} == {"painting"}
    assert stored[0].preset_version == judge.prompts.version
    assert stored[1].judgment.stages == chosen.stages
    assert explanation_subjectivity(chosen).rate == 0.0


def test_failures_are_not_stored_and_sets_are_checked(photo_paths: list[str], tmp_path: Path) -> None:
    profile = open_profile(tmp_path / "profile.db")
    with ChatServer(lambda body, call: Action(status=500, body={"error": {"message": "x"}})) as server:
        spec = JudgeSpec("scripted", endpoint=server.base_url)
        judge = open_judge(spec)
        judge.max_retries = 0
        record = compare_pair(judge, photo_paths[0], photo_paths[1], profile=profile)
    assert not record.parsed
    assert profile.judgments.stored() == []
    with pytest.raises(ValueError, match=r"2\.\.8"):
        compare_set(judge, photo_paths[:1])
    with pytest.raises(ValueError, match="twice"):
        compare_set(judge, [photo_paths[0], photo_paths[0]])


def test_unauthorised_server_raises(photo_paths: list[str]) -> None:
    with ChatServer(lambda body, call: Action(status=403, body={})) as server:
        judge = open_judge(JudgeSpec("m", endpoint=server.base_url))
        with pytest.raises(JudgeUnavailable):
            compare_pair(judge, photo_paths[0], photo_paths[1])


def test_local_spec_builds_a_local_judge(tiny_qwen3_vl_dir: Path) -> None:
    judge = open_judge(JudgeSpec(str(tiny_qwen3_vl_dir), both_orders=True, set_orderings=3))
    assert judge.judge_id == f"local:{tiny_qwen3_vl_dir.name}"
    assert judge.both_orders and judge.set_orderings == 3
