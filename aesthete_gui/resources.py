"""The one place that finds shipped data files: rubrics, prompts, styles, GRPO recipe, model cards, desktop files.

An installed wheel and the desktop bundle carry them inside the package as `aesthete_gui/data/<kind>/`
(pyproject.toml maps the repository's `resources/` and `models/` folders there). A source checkout
(an editable install, or the repository on `PYTHONPATH`) has no such folder, so the files are read
where the repository keeps them.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

KINDS: tuple[str, ...] = ("rubrics", "prompts", "styles", "grpo", "desktop", "culling", "faces", "models")

# Where each kind lives in a source checkout, relative to the repository root.
_CHECKOUT_FOLDERS: dict[str, str] = {kind: f"resources/{kind}" for kind in KINDS} | {"models": "models"}


class ResourceNotFoundError(FileNotFoundError):
    """A shipped data folder is missing from both the installed package and the checkout."""


def installed_data_root() -> Path | None:
    """`aesthete_gui/data` inside the installed package, or None when running from a checkout."""
    root = files("aesthete_gui") / "data"
    return Path(str(root)) if root.is_dir() else None


def checkout_root() -> Path | None:
    """The repository root when the package is imported from a source checkout, else None."""
    root = Path(str(files("aesthete_gui"))).resolve().parent
    return root if (root / "pyproject.toml").is_file() and (root / "resources").is_dir() else None


def resource_dir(kind: str) -> Path:
    """The folder holding one kind of shipped data (one of KINDS)."""
    if kind not in KINDS:
        raise ValueError(f"unknown resource kind {kind!r}; expected one of {', '.join(KINDS)}")
    installed = installed_data_root()
    if installed is not None:
        folder = installed / kind
    else:
        repository = checkout_root()
        if repository is None:
            raise ResourceNotFoundError(
                "Aesthete's data files were not found: the installation is incomplete "
                "(reinstall the package) or the source checkout lacks resources/"
            )
        folder = repository / _CHECKOUT_FOLDERS[kind]
    if not folder.is_dir():
        raise ResourceNotFoundError(f"Aesthete's {kind} folder is missing: {folder}")
    return folder


def resource_file(kind: str, name: str) -> Path:
    """One shipped file, e.g. resource_file("styles", "dark.qss")."""
    path = resource_dir(kind) / name
    if not path.is_file():
        raise ResourceNotFoundError(f"Aesthete's {kind} file is missing: {path}")
    return path
