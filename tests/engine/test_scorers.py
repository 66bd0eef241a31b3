"""Scorer ids: spelled and parsed in one place; bad ids fail with the forms that are accepted."""

from __future__ import annotations

import pytest

from aesthete_gui.engine.scorers import (
    BUILTIN,
    ScorerId,
    ScorerIdError,
    ScorerKind,
    is_builtin,
    scorer_id,
)


@pytest.mark.parametrize(
    ("text", "kind", "name"),
    [
        ("builtin", ScorerKind.BUILTIN, ""),
        ("student:mine", ScorerKind.STUDENT, "mine"),
        ("bridge:qwen:7b", ScorerKind.BRIDGE, "qwen:7b"),  # only the first colon separates
        ("taste:evening", ScorerKind.TASTE, "evening"),
        ("vlm-single-pass:Qwen/Qwen2.5-VL-3B", ScorerKind.VLM, "Qwen/Qwen2.5-VL-3B"),
    ],
)
def test_ids_round_trip(text: str, kind: ScorerKind, name: str) -> None:
    parsed = ScorerId.parse(text)
    assert (parsed.kind, parsed.name) == (kind, name)
    assert str(parsed) == text == scorer_id(kind, name)


def test_bare_names_need_a_default_kind_and_bad_ids_name_the_accepted_forms() -> None:
    assert ScorerId.parse("mine", bare=ScorerKind.STUDENT) == ScorerId(ScorerKind.STUDENT, "mine")
    with pytest.raises(ScorerIdError, match=r"expected builtin, student:<name>"):
        ScorerId.parse("mine")
    with pytest.raises(ScorerIdError, match="needs a name"):
        ScorerId.parse("taste:")
    with pytest.raises(ScorerIdError, match="no name"):
        ScorerId(ScorerKind.BUILTIN, "x")


def test_no_scorer_chosen_means_the_builtin_one() -> None:
    assert BUILTIN == "builtin"
    assert is_builtin(None) and is_builtin("") and is_builtin("builtin")
    assert not is_builtin("student:mine")
