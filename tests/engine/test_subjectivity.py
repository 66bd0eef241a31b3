"""Hedge and feeling word rate of explanations (docs/method.md §4)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from aesthete_gui.engine.subjectivity import (
    measure_subjectivity,
    normalise_word,
    subjectivity_of_stages,
)


def test_concrete_text_has_zero_rate() -> None:
    report = measure_subjectivity(
        "Image 1 has clipped highlights on the forehead; image 2 keeps detail in the sky."
    )
    assert report.hedges == 0
    assert report.feelings == 0
    assert report.rate == 0.0
    assert report.words == 13  # numbers are not words


def test_hedges_and_feelings_are_counted_with_inflections() -> None:
    report = measure_subjectivity(
        "The sky appears somewhat flat and it feels sad; it seemed to evoke a sense of loss."
    )
    assert report.hedges == 3  # appears, somewhat, seemed
    assert report.feelings == 3  # feels, evoke, sense
    assert report.words == 17
    assert abs(report.rate - 6 / 17) < 1e-12
    assert set(report.found) == {"appears", "somewhat", "seemed", "feels", "evoke", "sense"}


def test_phrases_count_once_and_dimension_names_are_not_feelings() -> None:
    report = measure_subjectivity("The mood is kind of dark; the atmosphere is sort of hazy.")
    assert report.hedges == 2
    assert report.feelings == 0
    assert report.found == ("kind of", "sort of")
    assert measure_subjectivity("a kind photographer").hedges == 0


def test_normalisation_and_empty_text() -> None:
    assert normalise_word("Felt") == "feel"
    assert normalise_word("appeared") == "appear"
    assert normalise_word("suggests") == "suggest"
    assert normalise_word("sharpness") == "sharpness"
    assert measure_subjectivity("").rate == 0.0
    combined = subjectivity_of_stages(["It feels warm.", "Image 2 is sharper."])
    assert combined.feelings == 1
    assert combined.words == 6


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_any_text_gives_a_rate_between_zero_and_one(text: str) -> None:
    report = measure_subjectivity(text)
    assert 0.0 <= report.rate <= 1.0
    assert report.hedges + report.feelings == len(report.found)
