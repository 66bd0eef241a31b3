"""Rubric presets: the shipped files load, and malformed presets fail with errors naming the problem."""

from __future__ import annotations

from pathlib import Path

import pytest

from aesthete_gui.engine.dimensions import DIMENSIONS
from aesthete_gui.engine.rubrics import RubricError, list_presets, load_preset, load_preset_file

SHIPPED = ["illustration", "painting", "photography", "rendering"]

VALID = """
name = "tiny"
version = 2
not_considered = ["the frame"]
{dimensions}
"""


def _dimension_tables(skip: str | None = None, levels: int = 5) -> str:
    tables = []
    for key in DIMENSIONS:
        if key == skip:
            continue
        level_list = ", ".join(f'"level {i}"' for i in range(1, levels + 1))
        tables.append(f'[dimensions.{key}]\nlook_at = "look at {key}"\nlevels = [{level_list}]\n')
    return "\n".join(tables)


def _write(tmp_path: Path, text: str, name: str = "tiny") -> Path:
    path = tmp_path / f"{name}.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_shipped_presets_are_listed_and_complete() -> None:
    assert list_presets() == SHIPPED
    for name in SHIPPED:
        preset = load_preset(name)
        assert preset.name == name
        assert preset.version >= 1
        assert preset.version_tag == f"{name}@{preset.version}"
        assert set(preset.dimensions) == set(DIMENSIONS)
        assert preset.not_considered
        for key, rubric in preset.dimensions.items():
            assert rubric.dimension == key
            assert len(rubric.levels) == 5
            assert rubric.level(1) != rubric.level(5)


def test_photography_excludes_subject_attractiveness() -> None:
    preset = load_preset("photography")
    assert any("attractive" in entry for entry in preset.not_considered)
    assert "focus" in preset.dimensions["technique"].look_at.lower()


def test_valid_custom_preset_loads_from_folder(tmp_path: Path) -> None:
    _write(tmp_path, VALID.format(dimensions=_dimension_tables()))
    assert list_presets(tmp_path) == ["tiny"]
    preset = load_preset("tiny", folder=tmp_path)
    assert preset.version == 2
    assert preset.dimensions["mood"].level(3) == "level 3"
    with pytest.raises(ValueError, match=r"1\.\.5"):
        preset.dimensions["mood"].level(6)


def test_unknown_preset_names_the_available_ones(tmp_path: Path) -> None:
    _write(tmp_path, VALID.format(dimensions=_dimension_tables()))
    with pytest.raises(RubricError, match=r"unknown rubric preset 'nope' \(available: tiny\)"):
        load_preset("nope", folder=tmp_path)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (VALID.format(dimensions=_dimension_tables(skip="mood")), "missing rubric for dimension 'mood'"),
        (VALID.format(dimensions=_dimension_tables(levels=4)), "exactly 5 descriptions"),
        (VALID.replace("version = 2", 'version = "two"').format(dimensions=_dimension_tables()), "'version'"),
        (VALID.replace("version = 2\n", "").format(dimensions=_dimension_tables()), "'version'"),
        (VALID.replace('name = "tiny"', 'name = ""').format(dimensions=_dimension_tables()), "'name'"),
        (VALID.format(dimensions=_dimension_tables()) + '[dimensions.beauty]\nlook_at = "x"\nlevels = []\n', "unknown dimension"),
        (VALID.replace('["the frame"]', "[3]").format(dimensions=_dimension_tables()), "not_considered"),
        (VALID.format(dimensions=_dimension_tables()).replace('look_at = "look at mood"', 'look_at = ""'), "dimensions.mood: 'look_at'"),
        ("name = [unclosed", "not valid TOML"),
        (VALID.format(dimensions=""), r"missing \[dimensions"),
    ],
)
def test_malformed_presets_raise_clear_errors(tmp_path: Path, text: str, message: str) -> None:
    path = _write(tmp_path, text)
    with pytest.raises(RubricError, match=message) as caught:
        load_preset_file(path)
    assert str(path) in str(caught.value)


def test_undecodable_file_is_a_rubric_error(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(RubricError, match="cannot read"):
        load_preset_file(path)
