"""Domain rubric presets (painting, photography, illustration, rendering) loaded from TOML data files."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from aesthete_gui.engine.dimensions import DIMENSIONS
from aesthete_gui.errors import AestheteError
from aesthete_gui.resources import resource_dir
from aesthete_gui.safe_names import name_problem

LEVEL_COUNT = 5


class RubricError(AestheteError, ValueError):
    """A rubric preset file is missing, unreadable or does not have the expected shape."""


@dataclass(frozen=True)
class Rubric:
    """What to look at for one dimension and the descriptions of its five anchored levels (1..5)."""

    dimension: str
    look_at: str
    levels: tuple[str, ...]

    def level(self, score: int) -> str:
        """The description of level `score` (1..5)."""
        if not 1 <= score <= LEVEL_COUNT:
            raise ValueError(f"rubric level must be 1..{LEVEL_COUNT}, got {score}")
        return self.levels[score - 1]


@dataclass(frozen=True)
class RubricPreset:
    """A versioned domain preset: one rubric per dimension and the things a judge must ignore."""

    name: str
    version: int
    dimensions: Mapping[str, Rubric]
    not_considered: tuple[str, ...]
    title: str = ""
    description: str = ""
    source: str = ""

    @property
    def version_tag(self) -> str:
        """`name@version`, the label stored next to scores this preset produced."""
        return f"{self.name}@{self.version}"


def rubrics_dir() -> Path:
    """The folder holding the preset TOML files."""
    return resource_dir("rubrics")


def list_presets(folder: Path | None = None) -> list[str]:
    """Names of the available presets (file stems), sorted."""
    folder = folder or rubrics_dir()
    return sorted(path.stem for path in folder.glob("*.toml"))


def load_preset(name: str, folder: Path | None = None) -> RubricPreset:
    """Load and validate the preset `name` (e.g. "photography"); raise RubricError on any problem."""
    folder = folder or rubrics_dir()
    if name_problem(name) is not None:
        raise RubricError(f"unknown rubric preset {name!r}: a preset is named, not a path ({name_problem(name)})")
    path = folder / f"{name}.toml"
    if not path.is_file():
        available = ", ".join(list_presets(folder)) or "none"
        raise RubricError(f"unknown rubric preset {name!r} (available: {available})")
    return load_preset_file(path)


def load_preset_file(path: Path) -> RubricPreset:
    """Load and validate one preset file; errors name the file and the offending field."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise RubricError(f"{path}: cannot read rubric preset: {error}") from error
    except tomllib.TOMLDecodeError as error:
        raise RubricError(f"{path}: not valid TOML: {error}") from error
    return parse_preset(data, source=str(path))


def parse_preset(data: Mapping[str, object], source: str = "<data>") -> RubricPreset:
    """Validate the parsed TOML mapping of a preset and build a RubricPreset."""
    name = _text(data, "name", source)
    version = data.get("version")
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise RubricError(f"{source}: 'version' must be a positive integer, got {version!r}")
    not_considered = data.get("not_considered", [])
    if not isinstance(not_considered, list) or not all(
        isinstance(entry, str) and entry.strip() for entry in not_considered
    ):
        raise RubricError(f"{source}: 'not_considered' must be a list of non-empty strings")
    dimensions = data.get("dimensions")
    if not isinstance(dimensions, dict):
        raise RubricError(f"{source}: missing [dimensions.*] tables")
    unknown = sorted(set(dimensions) - set(DIMENSIONS))
    if unknown:
        raise RubricError(
            f"{source}: unknown dimension(s) {', '.join(unknown)}; expected {', '.join(DIMENSIONS)}"
        )
    rubrics: dict[str, Rubric] = {}
    for key in DIMENSIONS:
        table = dimensions.get(key)
        if not isinstance(table, dict):
            raise RubricError(f"{source}: missing rubric for dimension {key!r}")
        where = f"{source}: dimensions.{key}"
        look_at = _text(table, "look_at", where)
        levels = table.get("levels")
        if not isinstance(levels, list) or len(levels) != LEVEL_COUNT:
            raise RubricError(f"{where}: 'levels' must list exactly {LEVEL_COUNT} descriptions")
        for index, level in enumerate(levels, start=1):
            if not isinstance(level, str) or not level.strip():
                raise RubricError(f"{where}: level {index} must be a non-empty string")
        rubrics[key] = Rubric(dimension=key, look_at=look_at, levels=tuple(levels))
    return RubricPreset(
        name=name,
        version=version,
        dimensions=rubrics,
        not_considered=tuple(not_considered),
        title=str(data.get("title", name)),
        description=str(data.get("description", "")),
        source=source,
    )


def _text(table: Mapping[str, object], key: str, where: str) -> str:
    value = table.get(key)
    if not isinstance(value, str) or not value.strip():
        raise RubricError(f"{where}: {key!r} must be a non-empty string")
    return value.strip()
