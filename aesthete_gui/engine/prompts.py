"""Build the judge's prompts per protocol from resources/prompts/ templates and a rubric preset.

Templates are data (`resources/prompts/protocols.toml`, with `$name` placeholders) and each domain
preset adds its own wording (`resources/prompts/domains/<preset>.toml`); the rubric text itself comes
from the engine's rubric presets (`aesthete_gui.engine.rubrics.load_preset`). A `Prompt` is plain
text plus how many images precede it and how many tokens its answer may take: every backend (local
transformers, OpenAI-compatible server) sends the same text.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from string import Template
from typing import Any, Protocol

from aesthete_gui.engine.dimensions import DIMENSIONS

PROTOCOLS = ("pointwise", "pairwise", "set", "analyser", "critic", "summariser")
MAX_SET_SIZE = 8
DEFAULT_PRESET = "photography"


class RubricLike(Protocol):
    """What prompts need from a rubric (engine.rubrics.Rubric has these fields, frozen)."""

    @property
    def look_at(self) -> str: ...
    @property
    def levels(self) -> Sequence[str]: ...


class PresetLike(Protocol):
    """What prompts need from a rubric preset (engine.rubrics.RubricPreset has these fields, frozen)."""

    @property
    def name(self) -> str: ...
    @property
    def version(self) -> Any: ...
    @property
    def dimensions(self) -> Mapping[str, RubricLike]: ...
    @property
    def not_considered(self) -> Sequence[str]: ...


class PromptError(ValueError):
    """A prompt template or domain file is missing, unreadable or uses an unknown placeholder."""


@dataclass(frozen=True)
class Prompt:
    """One request's text: `image_count` images come first, then `text`; `answer_prefix` starts the reply."""

    protocol: str
    text: str
    image_count: int
    max_new_tokens: int
    answer_prefix: str = ""


@dataclass(frozen=True)
class DomainWording:
    """How a domain preset names its role, subject and what the analyser and critic look at."""

    role: str
    subject: str
    subjects: str
    analysis_focus: str
    principles: str


@dataclass(frozen=True)
class ProtocolTemplates:
    """The protocol templates and per-protocol token limits from protocols.toml."""

    version: int
    texts: Mapping[str, str]
    max_new_tokens: Mapping[str, int]
    single_pass_prefix: str
    extra: Mapping[str, Any] = field(default_factory=dict)


def prompts_dir() -> Path:
    """The folder holding protocols.toml and domains/."""
    from aesthete_gui.resources import resource_dir

    return resource_dir("prompts")


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except FileNotFoundError as error:
        raise PromptError(f"prompt file not found: {path}") from error
    except tomllib.TOMLDecodeError as error:
        raise PromptError(f"prompt file {path} is not valid TOML: {error}") from error


def load_templates(folder: Path | None = None) -> ProtocolTemplates:
    """Read protocols.toml: one text per protocol, token limits, the single-pass answer prefix."""
    data = _read_toml((folder or prompts_dir()) / "protocols.toml")
    texts: dict[str, str] = {}
    for protocol in PROTOCOLS:
        section = data.get(protocol)
        if not isinstance(section, Mapping) or not isinstance(section.get("text"), str):
            raise PromptError(f"protocols.toml has no [{protocol}] text")
        texts[protocol] = section["text"].strip()
    limits = data.get("max_new_tokens", {})
    max_new = {p: int(limits.get(p, 384)) for p in PROTOCOLS}
    prefix = str(data.get("single_pass", {}).get("answer_prefix", '<answer>{"$dimension": '))
    extra = {"set_per_dimension_answer": str(data["set"].get("per_dimension_answer", "")).strip()}
    return ProtocolTemplates(int(data.get("version", 1)), texts, max_new, prefix, extra)


def load_domain(name: str, folder: Path | None = None) -> DomainWording:
    """Read domains/<name>.toml (role, subject nouns, analyser focus, critic principles)."""
    path = (folder or prompts_dir()) / "domains" / f"{name}.toml"
    data = _read_toml(path)
    missing = [k for k in DomainWording.__dataclass_fields__ if not isinstance(data.get(k), str)]
    if missing:
        raise PromptError(f"{path} lacks {', '.join(missing)}")
    return DomainWording(**{k: data[k].strip() for k in DomainWording.__dataclass_fields__})


def _fill(template: str, values: Mapping[str, object], protocol: str) -> str:
    try:
        return Template(template).substitute(values)
    except (KeyError, ValueError) as error:
        raise PromptError(f"[{protocol}] template uses an unknown placeholder: {error}") from error


class PromptBook:
    """All prompts of one domain preset; `version` names the template and preset versions used."""

    def __init__(
        self,
        preset: PresetLike,
        templates: ProtocolTemplates,
        domain: DomainWording,
        rubric_levels: bool = True,
    ) -> None:
        self.preset = preset
        self.templates = templates
        self.domain = domain
        # False: pointwise prompts give only what to look at, not the five anchored levels
        # (about a third of the tokens: faster on small machines, less guidance for the model).
        self.rubric_levels = rubric_levels

    @classmethod
    def for_preset(
        cls,
        name: str = DEFAULT_PRESET,
        folder: Path | None = None,
        rubrics_folder: Path | None = None,
        rubric_levels: bool = True,
    ) -> PromptBook:
        """The prompt book for a named preset: rubric from engine.rubrics, wording from `folder`."""
        from aesthete_gui.engine.rubrics import load_preset

        preset = load_preset(name, rubrics_folder)
        return cls(preset, load_templates(folder), load_domain(name, folder), rubric_levels)

    @property
    def preset_name(self) -> str:
        """The rubric preset's name."""
        return str(self.preset.name)

    @property
    def version(self) -> str:
        """e.g. 'prompts-1/photography-1': recorded with every judgment made from these prompts."""
        short = "" if self.rubric_levels else "-brief"
        return f"prompts-{self.templates.version}{short}/{self.preset.name}-{self.preset.version}"

    def _rubric_text(self, with_levels: bool) -> str:
        lines = []
        for number, key in enumerate(DIMENSIONS, start=1):
            rubric = self.preset.dimensions[key]
            lines.append(f"{number}) {key}: {rubric.look_at.strip()}")
            if with_levels:
                lines.extend(
                    f"   {level}: {text.strip()}" for level, text in enumerate(rubric.levels, 1)
                )
        return "\n".join(lines)

    def _values(self, count: int, with_levels: bool) -> dict[str, object]:
        not_considered = "; ".join(s.strip() for s in self.preset.not_considered) or "nothing extra"
        return {
            "role": self.domain.role,
            "subject": self.domain.subject,
            "subjects": self.domain.subjects,
            "analysis_focus": self.domain.analysis_focus,
            "principles": self.domain.principles,
            "dimension_list": ", ".join(DIMENSIONS),
            "rubric": self._rubric_text(with_levels),
            "not_considered": not_considered,
            "count": count,
            "image_numbers": ", ".join(str(i) for i in range(1, count + 1)),
        }

    def _prompt(self, protocol: str, count: int, with_levels: bool = False, **extra: str) -> Prompt:
        values = self._values(count, with_levels) | extra
        text = _fill(self.templates.texts[protocol], values, protocol)
        return Prompt(protocol, text, count, self.templates.max_new_tokens[protocol])

    def pointwise(self) -> Prompt:
        """Score one image on the five dimensions with the full anchored rubric."""
        return self._prompt("pointwise", 1, with_levels=self.rubric_levels)

    def pairwise(self) -> Prompt:
        """Compare two images (first = A, second = B) on the five dimensions."""
        return self._prompt("pairwise", 2)

    def set_selection(self, count: int, per_dimension: bool = False) -> Prompt:
        """Name the best and worst of `count` images (2..8), optionally per dimension too."""
        prompt = self._prompt("set", _check_count(count))
        answer = self.templates.extra.get("set_per_dimension_answer", "")
        if not per_dimension or not answer:
            return prompt
        text = prompt.text
        cut = text.rfind("Write your reasoning inside")
        if cut < 0:
            raise PromptError("[set] text must end with the answer instructions to ask per dimension")
        text = text[:cut] + _fill(answer, self._values(count, False), "set")
        # Five more best/worst pairs in the answer need room.
        return Prompt("set", text, count, prompt.max_new_tokens + 96)

    def analyser(self, count: int) -> Prompt:
        """Stage 1 of an explanation: concrete visual facts, compared aspect by aspect."""
        return self._prompt("analyser", _check_count(count))

    def critic(self, count: int, analysis: str) -> Prompt:
        """Stage 2: re-examine the images against the domain's principles; no verdict."""
        return self._prompt("critic", _check_count(count), analysis=analysis.strip())

    def summariser(self, count: int, analysis: str, critique: str) -> Prompt:
        """Stage 3: decide best and worst as JSON from the analysis and the critique."""
        return self._prompt(
            "summariser", _check_count(count), analysis=analysis.strip(), critique=critique.strip()
        )

    def single_pass(self) -> tuple[Prompt, dict[str, str]]:
        """The pointwise prompt and, per dimension, the reply text after which a score digit follows."""
        prefixes = {
            d: Template(self.templates.single_pass_prefix).safe_substitute(dimension=d)
            for d in DIMENSIONS
        }
        return self.pointwise(), prefixes


def _check_count(count: int) -> int:
    if not 2 <= count <= MAX_SET_SIZE:
        raise ValueError(f"a set has 2..{MAX_SET_SIZE} images, got {count}")
    return count
