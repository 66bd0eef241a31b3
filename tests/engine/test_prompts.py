"""Prompt building from the shipped templates, domain wording and rubric presets."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from aesthete_gui.engine.dimensions import DIMENSIONS
from aesthete_gui.engine.prompts import PromptBook, PromptError, load_domain, prompts_dir
from aesthete_gui.engine.rubrics import list_presets, load_preset


@pytest.mark.parametrize("preset", ["painting", "photography", "illustration", "rendering"])
def test_every_shipped_preset_has_domain_wording_and_builds_all_prompts(preset: str) -> None:
    book = PromptBook.for_preset(preset)
    rubric = load_preset(preset)
    pointwise = book.pointwise()
    assert pointwise.image_count == 1
    assert "$" not in pointwise.text
    for dimension in DIMENSIONS:
        assert dimension in pointwise.text
        assert rubric.dimensions[dimension].levels[4].strip() in pointwise.text
    assert rubric.not_considered[0] in pointwise.text
    assert "<think>" in pointwise.text and "<answer>" in pointwise.text
    pairwise = book.pairwise()
    assert pairwise.image_count == 2
    assert '"TIE"' in pairwise.text
    assert rubric.dimensions["technique"].levels[0] not in pairwise.text
    chosen = book.set_selection(5)
    assert "1, 2, 3, 4, 5" in chosen.text
    assert book.version == f"prompts-1/{preset}-{rubric.version}"


def test_presets_and_domain_files_match() -> None:
    domains = sorted(p.stem for p in (prompts_dir() / "domains").glob("*.toml"))
    assert domains == list_presets()


def test_stages_feed_previous_outputs() -> None:
    book = PromptBook.for_preset("painting")
    analyser = book.analyser(3)
    critic = book.critic(3, "Image 2 has muddy shadows.")
    summariser = book.summariser(3, "Image 2 has muddy shadows.", "The analysis missed a halo.")
    assert "brushwork" in analyser.text
    assert "Image 2 has muddy shadows." in critic.text
    assert "Do not pick a winner" in critic.text
    assert "The analysis missed a halo." in summariser.text
    assert '"best"' in summariser.text
    assert summariser.max_new_tokens < analyser.max_new_tokens


def test_template_text_with_dollars_and_braces_in_stage_output_is_kept_verbatim() -> None:
    book = PromptBook.for_preset("photography")
    critic = book.critic(2, 'cost $5 {"x": 1} ${unknown}')
    assert 'cost $5 {"x": 1} ${unknown}' in critic.text


def test_set_size_limits() -> None:
    book = PromptBook.for_preset("photography")
    with pytest.raises(ValueError, match=r"2\.\.8"):
        book.set_selection(9)
    with pytest.raises(ValueError):
        book.analyser(1)


def test_single_pass_prefixes_per_dimension() -> None:
    prompt, prefixes = PromptBook.for_preset("photography").single_pass()
    assert prompt.protocol == "pointwise"
    assert prefixes["mood"] == '<answer>{"mood": '
    assert list(prefixes) == list(DIMENSIONS)


def test_edited_template_with_unknown_placeholder_gives_clear_error(tmp_path: Path) -> None:
    folder = tmp_path / "prompts"
    shutil.copytree(prompts_dir(), folder)
    text = (folder / "protocols.toml").read_text(encoding="utf-8")
    (folder / "protocols.toml").write_text(text.replace("$role\nGrade", "$rol\nGrade"), encoding="utf-8")
    book = PromptBook.for_preset("photography", folder=folder)
    with pytest.raises(PromptError, match="unknown placeholder"):
        book.pointwise()


def test_missing_or_broken_files_give_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(PromptError, match="not found"):
        load_domain("photography", tmp_path)
    (tmp_path / "domains").mkdir()
    (tmp_path / "domains" / "x.toml").write_text('role = "r"\nsubject = [', encoding="utf-8")
    with pytest.raises(PromptError, match="not valid TOML"):
        load_domain("x", tmp_path)
    (tmp_path / "domains" / "y.toml").write_text('role = "r"', encoding="utf-8")
    with pytest.raises(PromptError, match="lacks subject"):
        load_domain("y", tmp_path)
    (tmp_path / "protocols.toml").write_text("version = 1\n", encoding="utf-8")
    with pytest.raises(PromptError, match=r"no \[pointwise\] text"):
        PromptBook.for_preset("photography", folder=tmp_path)


def test_brief_pointwise_prompt_leaves_out_the_levels() -> None:
    full = PromptBook.for_preset("photography").pointwise().text
    book = PromptBook.for_preset("photography", rubric_levels=False)
    brief = book.pointwise().text
    level = load_preset("photography").dimensions["mood"].levels[2]
    assert level in full and level not in brief
    assert len(brief) < len(full) / 2
    assert book.version == "prompts-1-brief/photography-1"


def test_set_prompt_can_ask_per_dimension() -> None:
    book = PromptBook.for_preset("illustration")
    plain = book.set_selection(3)
    both = book.set_selection(3, per_dimension=True)
    assert '"technique": {"best"' in both.text
    assert '"technique": {"best"' not in plain.text
    assert both.text.count("Write your reasoning") == 1
    assert both.max_new_tokens > plain.max_new_tokens
