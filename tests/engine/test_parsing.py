"""Judge reply parsing: messy but honest replies are read, everything else is unparsed, never invented."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aesthete_gui.engine.dimensions import DIMENSIONS
from aesthete_gui.engine.parsing import (
    outcome_from_value,
    parse_free_text,
    parse_pairwise,
    parse_pointwise,
    parse_set,
    position_from_value,
    split_reply,
)

GOOD_POINTWISE = (
    "<think>Sharp eyes, clean light.</think>"
    '<answer>{"technique": 4.25, "coloration": 3.5, "composition": 4, "mood": 2.75, "overall": 3.9}</answer>'
)


def test_well_formed_pointwise_reply() -> None:
    result = parse_pointwise(GOOD_POINTWISE)
    assert result.parsed
    assert result.scores == {
        "technique": 4.25,
        "coloration": 3.5,
        "composition": 4.0,
        "mood": 2.75,
        "overall": 3.9,
    }
    assert result.rationale == "Sharp eyes, clean light."
    assert result.notes == ()


def test_pointwise_without_tags_in_code_fence_with_single_quotes_and_trailing_comma() -> None:
    raw = (
        "Here is my evaluation of the photo.\n```json\n{'technique': '4.5', 'coloration': 3,"
        " 'composition': 2, 'mood': 5, 'overall': 4,}\n```\nHope this helps."
    )
    result = parse_pointwise(raw)
    assert result.parsed
    assert result.scores["technique"] == 4.5
    assert result.scores["overall"] == 4.0
    assert "Here is my evaluation" in result.rationale


def test_out_of_range_scores_become_none_with_a_note() -> None:
    raw = '<answer>{"technique": 7, "coloration": 0.5, "composition": 3, "mood": 3, "overall": 3}</answer>'
    result = parse_pointwise(raw)
    assert result.parsed
    assert result.scores["technique"] is None
    assert result.scores["coloration"] is None
    assert result.scores["composition"] == 3.0
    assert any("technique: 7 outside" in note for note in result.notes)


def test_missing_keys_become_none() -> None:
    result = parse_pointwise('<answer>{"overall": 2.5}</answer>')
    assert result.parsed
    assert result.scores["overall"] == 2.5
    assert [d for d, v in result.scores.items() if v is None] == list(DIMENSIONS[:4])
    assert "technique: missing" in result.notes


def test_all_invalid_is_unparsed() -> None:
    result = parse_pointwise('<answer>{"technique": "great", "overall": 11}</answer>')
    assert not result.parsed
    assert set(result.scores.values()) == {None}


def test_refusal_is_unparsed() -> None:
    raw = "I'm sorry, but I can't evaluate the artistic merit of images."
    for parse in (parse_pointwise, parse_pairwise):
        result = parse(raw)
        assert not result.parsed
        assert result.notes == ("no JSON answer found",)
    assert not parse_set(raw, 3).parsed


def test_booleans_nan_and_fractions() -> None:
    raw = '{"technique": true, "coloration": NaN, "composition": "4/5", "mood": "3.5 / 5", "overall": null}'
    result = parse_pointwise(raw)
    assert result.scores["technique"] is None
    assert result.scores["coloration"] is None
    assert result.scores["composition"] == 4.0
    assert result.scores["mood"] == 3.5
    assert result.scores["overall"] is None


def test_nested_scores_object_and_upper_case_keys() -> None:
    raw = '<answer>{"scores": {"Technique": 2, "COLORATION": 3, "composition": 4, "mood": 5, "overall": 1}}</answer>'
    result = parse_pointwise(raw)
    assert result.scores == {"technique": 2, "coloration": 3, "composition": 4, "mood": 5, "overall": 1}


def test_unclosed_answer_tag_and_unclosed_think() -> None:
    assert parse_pointwise('<think>ok</think><answer>{"overall": 3}').scores["overall"] == 3.0
    result = parse_pointwise('<think>still thinking {"overall": 2}')
    assert result.scores["overall"] == 2.0


def test_last_object_wins_when_reply_restates() -> None:
    raw = 'Draft: {"overall": 2} final: {"overall": 4}'
    assert parse_pointwise(raw).scores["overall"] == 4.0


def test_bare_keys_and_python_literals() -> None:
    raw = "<answer>{technique: 'A', coloration: 'B', composition: 'TIE', mood: None, overall: 'A'}</answer>"
    result = parse_pairwise(raw)
    assert result.parsed
    assert result.outcome == {
        "technique": "A",
        "coloration": "B",
        "composition": "TIE",
        "mood": None,
        "overall": "A",
    }


def test_pairwise_synonyms() -> None:
    raw = (
        '<answer>{"technique": "first", "coloration": "Image 2", "composition": "left",'
        ' "mood": "tie.", "overall": "the second image"}</answer>'
    )
    result = parse_pairwise(raw)
    assert result.outcome == {
        "technique": "A",
        "coloration": "B",
        "composition": "A",
        "mood": "TIE",
        "overall": "B",
    }


def test_pairwise_unknown_values_and_numbers_are_not_guessed() -> None:
    raw = '<answer>{"technique": 1, "coloration": "C", "composition": "both?", "overall": "A"}</answer>'
    result = parse_pairwise(raw)
    assert result.parsed
    assert result.outcome["technique"] is None
    assert result.outcome["coloration"] is None
    assert result.outcome["overall"] == "A"
    assert any(note.startswith("technique: not A/B/TIE") for note in result.notes)
    assert "mood: missing" in result.notes


def test_smart_quotes_are_repaired() -> None:
    raw = "<answer>{“overall”: “B”, ‘mood’: ‘A’}</answer>"
    result = parse_pairwise(raw)
    assert result.outcome["overall"] == "B"
    assert result.outcome["mood"] == "A"


def test_set_selection_numbers_and_words() -> None:
    result = parse_set('<think>x</think><answer>{"best": "Image 3", "worst": 1}</answer>', 4)
    assert (result.parsed, result.best, result.worst) == (True, 2, 0)
    result = parse_set('{"best": "second", "worst": "#4"}', 4)
    assert (result.best, result.worst) == (1, 3)


def test_set_selection_rejects_out_of_range_and_same_image() -> None:
    assert not parse_set('{"best": 5, "worst": 1}', 4).parsed
    same = parse_set('{"best": 2, "worst": 2}', 4)
    assert not same.parsed
    assert (same.best, same.worst) == (None, None)
    assert "best and worst name the same image" in same.notes


def test_set_selection_per_dimension() -> None:
    raw = '{"best": 1, "worst": 3, "technique": {"best": 2, "worst": 3}, "mood": {"best": 9}}'
    result = parse_set(raw, 3)
    assert result.per_dimension["technique"] == (1, 2)
    assert result.per_dimension["mood"] == (None, None)


def test_helpers() -> None:
    assert outcome_from_value("Right") == "B"
    assert outcome_from_value(2) is None
    assert position_from_value(True, 3) is None
    assert position_from_value(2.0, 3) == 1
    assert position_from_value("the third one", 3) == 2
    parts = split_reply("<think> a </think> prose {\"x\": 1}")
    assert parts.reasoning == "a"
    assert not parts.had_answer_tag
    assert parse_free_text("<think>Image 1 is sharp.</think>") == "Image 1 is sharp."


_NUMBER_RE = re.compile(r"\d+(?:\.\d+)?")


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=400))
def test_any_text_never_raises_and_never_invents(raw: str) -> None:
    pointwise = parse_pointwise(raw)
    numbers_in_raw = {float(n) for n in _NUMBER_RE.findall(raw)}
    for value in pointwise.scores.values():
        assert value is None or (1.0 <= value <= 5.0 and value in numbers_in_raw)
    assert pointwise.parsed == any(v is not None for v in pointwise.scores.values())
    pairwise = parse_pairwise(raw)
    assert set(pairwise.outcome) == set(DIMENSIONS)
    if pairwise.parsed:
        assert "{" in raw
    chosen = parse_set(raw, 8)
    assert chosen.parsed == (chosen.best is not None and chosen.worst is not None)


_json_value = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(-10, 10),
    st.text(max_size=12),
    st.booleans(),
    st.none(),
)


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(st.sampled_from([*DIMENSIONS, "best", "worst", "x"]), _json_value),
    st.sampled_from(["{}", "<answer>{}</answer>", "<think>t</think><answer>{}", "```json\n{}\n```"]),
)
def test_structured_replies_keep_only_valid_values(answer: dict, wrapper: str) -> None:
    body = "{" + ", ".join(f'"{k}": {_as_json(v)}' for k, v in answer.items()) + "}"
    raw = wrapper.replace("{}", body)
    result = parse_pointwise(raw)
    for dimension, value in result.scores.items():
        if value is not None:
            original = answer[dimension]
            assert not isinstance(original, bool)
            assert abs(float(str(original).split("/")[0]) - value) < 1e-9
            assert 1.0 <= value <= 5.0
    chosen = parse_set(raw, 3)
    if chosen.parsed:
        assert chosen.best != chosen.worst


def _as_json(value: object) -> str:
    import json

    return json.dumps(value)


HOSTILE_REPLIES = {
    "superscript best": ('<answer>{"best": "²", "worst": 1}</answer>', "best"),
    "circled digit best": ('{"best": "①", "worst": "image ³"}', "best"),
    "5,000-digit best": ('{"best": ' + "9" * 5000 + ', "worst": 1}', "no JSON answer"),
    "5,000-digit best as text": ('{"best": "' + "9" * 5000 + '", "worst": 1}', "best"),
    "4,000-digit best": ('{"best": ' + "7" * 4000 + ', "worst": 1}', "best"),
    "400-digit score": ('{"technique": ' + "4" * 400 + "}", "technique: not a number in range"),
    "400-digit score as text": ('{"technique": "' + "4" * 400 + '"}', "technique: not a number in range"),
    "1e400 score": ('{"technique": 1e400, "best": 1e400, "worst": -1e400}', "technique"),
    "arabic-indic digit score": ('{"technique": "٤"}', "technique: not a number in range"),
    "deeply nested": ('{"technique": ' + "[" * 5000 + "]" * 5000 + "}", "no JSON answer"),
}


def test_hostile_values_are_unparsed_with_a_note_never_raised() -> None:
    for name, (raw, note) in HOSTILE_REPLIES.items():
        pointwise, pairwise, chosen = parse_pointwise(raw), parse_pairwise(raw), parse_set(raw, 3)
        assert not pointwise.parsed and not pairwise.parsed and not chosen.parsed, name
        assert all(v is None for v in pointwise.scores.values()), name
        assert chosen.best is None and chosen.worst is None, name
        notes = " ".join(pointwise.notes + pairwise.notes + chosen.notes)
        assert note in notes, (name, notes)
        assert all(len(n) < 200 for n in pointwise.notes + chosen.notes), name


def test_a_parser_error_becomes_an_unparsed_result(monkeypatch: pytest.MonkeyPatch) -> None:
    from aesthete_gui.engine import parsing

    def explode(raw: str) -> None:
        raise RuntimeError("a case nobody thought of")

    monkeypatch.setattr(parsing, "extract_answer_object", explode)
    for result in (parse_pointwise("{}"), parse_pairwise("{}"), parse_set("{}", 3)):
        assert result.parsed is False and result.notes == ("reply could not be read (RuntimeError)",)
    assert parse_pointwise(None).parsed is False  # type: ignore[arg-type]


_hostile_value = st.one_of(
    st.integers(min_value=-(10**600), max_value=10**600),
    st.integers(min_value=-(10**600), max_value=10**600).map(str),
    st.text(alphabet=st.characters(categories=["Nd", "No", "Nl"]), min_size=1, max_size=6),
    st.floats(),
    st.lists(st.integers(0, 9), max_size=3),
    st.dictionaries(st.sampled_from(["best", "worst"]), st.integers(-(10**30), 10**30), max_size=2),
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from([*DIMENSIONS, "best", "worst"]), _hostile_value, min_size=1))
def test_hostile_numbers_never_raise_and_never_invent(answer: dict) -> None:
    raw = "<answer>{" + ", ".join(f'"{k}": {_as_json(v)}' for k, v in answer.items()) + "}</answer>"
    for result in (parse_pointwise(raw), parse_pairwise(raw), parse_set(raw, 8)):
        assert isinstance(result.parsed, bool)
    for dimension, value in parse_pointwise(raw).scores.items():
        if value is not None:
            original = answer[dimension]
            assert isinstance(original, int | float | str) and 1.0 <= value <= 5.0
            assert float(original) == value
    chosen = parse_set(raw, 8)
    if chosen.best is not None:
        assert chosen.best + 1 == int(answer["best"]) and 1 <= int(answer["best"]) <= 8
