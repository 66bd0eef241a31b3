"""Fitted verdict models: several measures weighed together decide focus, motion blur, noise and exposure.

One measure cannot tell a soft photograph from a sharp one blurred a little: clean photographs span
a wide range of each (a foggy lake, a macro with a sliver in focus, a scan). A model weighs a few
measures the checks take into one score, `intercept + sum(weight * transform(measure))`, fitted on
the calibration corpus's tune half (benchmarks/culling_fit.py): 0 is the reject point, `warn` where
a warning starts. The weights are data (resources/culling/verdict_models.toml, versioned), and each
term's `typical` value (the median over clean photographs) lets a verdict name the measure that
drove it: the term whose value, compared with typical, added most to the score.
"""

from __future__ import annotations

import functools
import math
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from aesthete_gui.errors import AestheteError
from aesthete_gui.resources import resource_dir

MODEL_NAME = "verdict_models.toml"
TRANSFORMS = ("linear", "log")
LOG_FLOOR = 1e-3
"""log terms read log(max(value, LOG_FLOOR)): shares and sigmas of 0 stay finite."""
MODELLED: dict[str, frozenset[str]] = {
    "focus": frozenset({"focus.subject", "focus.narrow", "focus.detail", "focus.edges", "motion_blur.coherence",
                        "resolution", "motion_blur"}),
    "motion_blur": frozenset({"motion_blur", "motion_blur.narrow", "motion_blur.across", "motion_blur.along",
                              "motion_blur.coherence", "focus.subject"}),
    "noise": frozenset({"noise", "noise.chroma", "noise.whiteness", "underexposure.median"}),
    "underexposure": frozenset({"underexposure", "underexposure.median", "underexposure.p90"}),
    "overexposure": frozenset({"overexposure", "overexposure.colour", "overexposure.median", "overexposure.p1",
                               "overexposure.p10", "overexposure.unblown_median", "highlights.frame", "highlights"}),
}  # fmt: skip
"""The checks decided by a model, and the measures each model may read."""


class VerdictModelError(AestheteError, ValueError):
    """The verdict models file is missing, malformed or names a measure no check takes (or a rules file
    of the checks holds a value that is not a number)."""


RULE_WORDS: dict[str, tuple[str, ...]] = {"direction": ("above", "below"), "cap": ("warn", "off")}
"""Rule entries (checks.toml, shoot_types.toml) that hold a word, and the words; every other entry is a number."""


def check_rule_values(rules: Mapping[str, Any], where: str) -> None:
    """Raise VerdictModelError (one line, naming the entry) unless every entry of every check's rules
    is a finite number, or a word where a word goes."""
    for check, rule in rules.items():
        if not isinstance(rule, Mapping):
            continue
        for key, value in rule.items():
            number = isinstance(value, int | float) and not isinstance(value, bool)
            if key in RULE_WORDS:
                if value not in RULE_WORDS[key]:
                    raise VerdictModelError(f"{where}: [{check}] {key} must be one of {', '.join(RULE_WORDS[key])}, not {value!r}")
            elif not (number and math.isfinite(float(value))):
                raise VerdictModelError(f"{where}: [{check}] {key} must be a number, not {value!r}")


def transform(values: Any, kind: str) -> Any:
    """A measure as a model term reads it (values: a float or an array)."""
    if kind == "log":
        return np.log(np.maximum(values, LOG_FLOOR))
    return values


@dataclass(frozen=True)
class Term:
    """One measure a model reads: how, its weight, and its typical value on clean photographs."""

    measure: str
    transform: str
    weight: float
    typical: float

    def read(self, values: Mapping[str, float]) -> float:
        """The measure from `values` (typical when missing or not a number)."""
        value = values.get(self.measure)
        return float(value) if value is not None and math.isfinite(float(value)) else self.typical

    def push(self, values: Mapping[str, float]) -> float:
        """How much this term adds to the score compared with a typical clean photograph."""
        return self.weight * float(transform(self.read(values), self.transform) - transform(self.typical, self.transform))


@dataclass(frozen=True)
class VerdictModel:
    """One check's model: its terms and intercept (score 0: reject) and the score a warning starts at."""

    check: str
    terms: tuple[Term, ...]
    intercept: float
    warn: float
    group: float | None = None
    """How much higher than the best frame of its burst a frame must score to be a reject (None:
    frames are not compared)."""

    def score(self, values: Mapping[str, float], shift: float = 0.0) -> float:
        """The score of measured values, plus `shift` (a shoot type's strictness)."""
        total = self.intercept + shift
        return total + sum(t.weight * float(transform(t.read(values), t.transform)) for t in self.terms)

    def drivers(self, values: Mapping[str, float]) -> list[Term]:
        """The terms that pushed the score up compared with a typical clean photograph, most first."""
        pushes = sorted(((t.push(values), t) for t in self.terms), key=lambda pt: -pt[0])
        return [t for push, t in pushes if push > 0]


def _number(table: Mapping[str, Any], key: str, where: str) -> float:
    value = table.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(float(value)):
        raise VerdictModelError(f"{where}.{key} must be a number, not {value!r}")
    return float(value)


def parse_models(data: Mapping[str, Any], source: str = "verdict_models.toml") -> dict[str, VerdictModel]:
    """Every model of a parsed models file, checked: known checks and measures, numbers where numbers go."""
    if not isinstance(data.get("version"), str):
        raise VerdictModelError(f"{source}: needs a version string")
    models: dict[str, VerdictModel] = {}
    for check, allowed in MODELLED.items():
        table = data.get(check)
        if not isinstance(table, Mapping):
            raise VerdictModelError(f"{source}: no model for {check}")
        where = f"{source}: {check}"
        terms = []
        for n, raw in enumerate(table.get("terms") or []):
            at = f"{where}.terms[{n}]"
            if not isinstance(raw, Mapping):
                raise VerdictModelError(f"{at} must be a table")
            measure, kind = raw.get("measure"), raw.get("transform", "linear")
            if measure not in allowed:
                raise VerdictModelError(f"{at}: {measure!r} is not a measure the {check} model can read ({', '.join(sorted(allowed))})")
            if kind not in TRANSFORMS:
                raise VerdictModelError(f"{at}: transform must be one of {TRANSFORMS}, not {kind!r}")
            typical = _number(raw, "typical", at)
            if kind == "log" and typical <= 0:
                raise VerdictModelError(f"{at}: a log term needs a positive typical value")
            terms.append(Term(str(measure), str(kind), _number(raw, "weight", at), typical))
        if not terms:
            raise VerdictModelError(f"{where} has no terms")
        warn = _number(table, "warn", where)
        if warn >= 0:
            raise VerdictModelError(f"{where}.warn must be below 0 (the reject point)")
        group = _number(table, "group", where) if "group" in table else None
        if group is not None and group <= 0:
            raise VerdictModelError(f"{where}.group must be above 0")
        models[check] = VerdictModel(check, tuple(terms), _number(table, "intercept", where), warn, group)
    return models


def read_models(path: Path) -> tuple[str, dict[str, VerdictModel]]:
    """The version and models of a models file (VerdictModelError with one line saying what is wrong)."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise VerdictModelError(f"cannot read the verdict models {path}: {error.strerror or error}") from None
    except tomllib.TOMLDecodeError as error:
        raise VerdictModelError(f"{path.name} is not valid TOML: {error}") from None
    return str(data.get("version")), parse_models(data, path.name)


def model_file() -> Path:
    """Where the shipped verdict models are (resources/culling/verdict_models.toml)."""
    return resource_dir("culling") / MODEL_NAME


@functools.cache
def _shipped() -> tuple[str, dict[str, VerdictModel]]:
    return read_models(model_file())


def verdict_models() -> dict[str, VerdictModel]:
    """The shipped verdict models (read once)."""
    return _shipped()[1]


def models_version() -> str:
    """The version of the shipped verdict models (part of every stored verdict's stamp)."""
    return _shipped()[0]
