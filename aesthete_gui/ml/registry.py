"""Model cards (models/*.toml: checkpoints known to work); the Scorer protocol lives in engine/scorers.py.

A card says what a checkpoint is (family, role, parameters, memory, licence, which protocols were
checked); `installed_path` finds it offline in the standard cache or in a local models folder.
No function here downloads anything or imports torch.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from aesthete_gui.engine.scorers import Scorer
from aesthete_gui.errors import AestheteError

__all__ = ["ModelCard", "ModelCardError", "Scorer", "card_for", "default_judge", "installed_path", "list_cards", "read_card"]

ROLES = ("judge", "encoder")
PERMISSIVE_LICENCES = frozenset({"Apache-2.0", "MIT", "BSD-3-Clause", "BSD-2-Clause"})


class ModelCardError(AestheteError, ValueError):
    """A model card file is unreadable or lacks a required field."""


@dataclass(frozen=True)
class ModelCard:
    """One checkpoint known to work with Aesthete."""

    id: str
    role: str
    family: str
    parameters_billion: float
    memory_gib_bf16: float
    licence: str
    protocols_checked: tuple[str, ...] = ()
    notes: str = ""
    revision: str | None = None
    source: str = ""
    extra: dict[str, object] = field(default_factory=dict)
    licence_source: str = ""
    default_judge: bool = False

    @property
    def memory_gib_float32(self) -> float:
        """Memory at float32 (the CPU dtype): twice the bf16 figure."""
        return self.memory_gib_bf16 * 2

    @property
    def permissive(self) -> bool:
        """True when the licence allows commercial use without conditions beyond attribution."""
        return self.licence.strip() in PERMISSIVE_LICENCES


def models_dir() -> Path:
    """The folder with the shipped model cards (models/ in a checkout, inside the installed package)."""
    from aesthete_gui.resources import resource_dir

    return resource_dir("models")


_REQUIRED = ("id", "role", "family", "parameters_billion", "memory_gib_bf16", "licence")


def read_card(path: Path) -> ModelCard:
    """Read and check one card file."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ModelCardError(f"{path}: cannot read model card: {error}") from error
    missing = [key for key in _REQUIRED if key not in data]
    if missing:
        raise ModelCardError(f"{path}: missing {', '.join(missing)}")
    if data["role"] not in ROLES:
        raise ModelCardError(f"{path}: role must be one of {', '.join(ROLES)}")
    known = set(_REQUIRED) | {"protocols_checked", "notes", "revision", "licence_source", "default_judge"}
    if data.get("default_judge") and str(data["licence"]).strip() not in PERMISSIVE_LICENCES:
        raise ModelCardError(f"{path}: the default judge must have a permissive licence, not {data['licence']}")
    return ModelCard(
        id=str(data["id"]),
        role=str(data["role"]),
        family=str(data["family"]),
        parameters_billion=float(data["parameters_billion"]),
        memory_gib_bf16=float(data["memory_gib_bf16"]),
        licence=str(data["licence"]),
        protocols_checked=tuple(str(p) for p in data.get("protocols_checked", ())),
        notes=str(data.get("notes", "")),
        revision=data.get("revision"),
        source=str(path),
        extra={k: v for k, v in data.items() if k not in known},
        licence_source=str(data.get("licence_source", "")),
        default_judge=bool(data.get("default_judge", False)),
    )


def list_cards(folder: Path | None = None) -> list[ModelCard]:
    """All model cards, judges first, then by size."""
    cards = [read_card(p) for p in sorted((folder or models_dir()).glob("*.toml"))]
    return sorted(cards, key=lambda c: (ROLES.index(c.role), c.family, c.parameters_billion))


def default_judge(cards: list[ModelCard]) -> ModelCard | None:
    """The judge to preselect: the card marked default_judge, else the first permissive judge."""
    judges = [c for c in cards if c.role == "judge"]
    return next((c for c in judges if c.default_judge), None) or next((c for c in judges if c.permissive), None)


def card_for(model_id: str, folder: Path | None = None) -> ModelCard | None:
    """The card whose id matches `model_id` (case-insensitive), if any."""
    wanted = model_id.strip().lower()
    return next((c for c in list_cards(folder) if c.id.lower() == wanted), None)


def installed_path(model_id: str, cache_dir: str | os.PathLike[str] | None = None) -> Path | None:
    """Where a hub id already lies in the standard Hugging Face cache (offline), else None."""
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import LocalEntryNotFoundError

    try:
        hub_cache = None if cache_dir is None else Path(cache_dir)
        return Path(snapshot_download(model_id, cache_dir=hub_cache, local_files_only=True))
    except (LocalEntryNotFoundError, OSError, ValueError):
        return None
