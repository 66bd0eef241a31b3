"""Shoot types (general, wedding, sport, wildlife, landscape, studio): which checks matter and how strict.

The data is resources/culling/shoot_types.toml: per shoot type, per check, thresholds that replace
checks.toml's and a `cap` ("warn": never a suggested reject; "off": not judged). Verdicts depend on
the shoot type only through `limits_for`, so changing it judges the stored measurements again
without decoding anything (services/verdicts.py).
"""

from __future__ import annotations

import functools
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from aesthete_gui.imaging.verdict_models import VerdictModelError, check_rule_values
from aesthete_gui.resources import resource_file

DEFAULT_SHOOT_TYPE = "general"
CAPS = ("warn", "off")


class UnknownShootTypeError(ValueError):
    """A shoot type name that resources/culling/shoot_types.toml does not define."""


@dataclass(frozen=True)
class ShootType:
    """One shoot type: its name, a label for menus, a sentence about it, and its per-check overrides."""

    name: str
    label: str
    about: str
    overrides: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)


@functools.cache
def _data() -> dict[str, Any]:
    try:
        with open(resource_file("culling", "shoot_types.toml"), "rb") as handle:
            return tomllib.load(handle)
    except tomllib.TOMLDecodeError as error:
        raise VerdictModelError(f"shoot_types.toml is not valid TOML: {error}") from None


@functools.cache
def shoot_types() -> dict[str, ShootType]:
    """Every shoot type, in menu order (read once; VerdictModelError with one line when the file is
    malformed)."""
    data = _data()
    out: dict[str, ShootType] = {}
    order = data.get("order", [])
    if not isinstance(order, list):
        raise VerdictModelError(f"shoot_types.toml: order must be a list of shoot type names, not {order!r}")
    for name in order:
        table = data.get(name)
        if not isinstance(table, dict):
            raise VerdictModelError(f"shoot_types.toml: order names {name!r}, which has no table of its own")
        overrides = {k: dict(v) for k, v in table.items() if isinstance(v, dict)}
        for check, rule in overrides.items():
            if rule.get("cap", "warn") not in CAPS:
                raise VerdictModelError(f"shoot_types.toml: {name}.{check}.cap must be one of {CAPS}")
        check_rule_values(overrides, f"shoot_types.toml: {name}")
        out[name] = ShootType(name, str(table.get("label", name)), str(table.get("about", "")), overrides)
    if DEFAULT_SHOOT_TYPE not in out:
        raise VerdictModelError(f"shoot_types.toml lacks the default shoot type {DEFAULT_SHOOT_TYPE!r}")
    return out


def shoot_types_version() -> str:
    """The version of the shoot types file (part of every stored verdict's stamp)."""
    return str(_data().get("version", "0"))


def shoot_type(name: str | None) -> ShootType:
    """The shoot type called `name` (None: the default); UnknownShootTypeError names the choices."""
    known = shoot_types()
    key = (name or DEFAULT_SHOOT_TYPE).strip().lower()
    if key not in known:
        raise UnknownShootTypeError(f"unknown shoot type {name!r}; choose one of: {', '.join(known)}")
    return known[key]


def limits_for(name: str | None, base: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """checks.toml's thresholds (`base`) with the shoot type's overrides laid over them, per check."""
    kind = shoot_type(name)
    limits = {check: dict(rule) for check, rule in base.items() if isinstance(rule, Mapping)}
    for check, rule in kind.overrides.items():
        limits.setdefault(check, {}).update(rule)
    return limits
