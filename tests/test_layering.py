"""Architecture rules: the import-linter layer contracts hold, torch is imported lazily, and the
CLI and the engine start without torch or Qt."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "aesthete_gui"


def _module_level_roots(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    roots: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


def test_import_contracts_hold() -> None:
    """The layer contracts in pyproject.toml ([tool.importlinter]), also run by `make test`."""
    out = subprocess.run(
        [sys.executable, "-c", "import sys; from importlinter.cli import lint_imports; sys.exit(lint_imports(no_cache=True))"],
        capture_output=True,
        text=True,
        cwd=PACKAGE.parent,
    )
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    assert "0 broken" in out.stdout


def test_model_layers_import_torch_lazily() -> None:
    offenders = [
        str(p.relative_to(PACKAGE))
        for sub in ("ml", "training")
        for p in (PACKAGE / sub).rglob("*.py")
        if _module_level_roots(p) & {"torch", "transformers", "torchvision", "peft", "trl"}
        and not p.name.startswith("_torch")
    ]
    assert offenders == [], "import torch inside functions, or in a module named _torch*.py"


def test_engine_and_cli_start_without_torch_or_qt() -> None:
    code = (
        "import sys, aesthete_gui.cli as c, aesthete_gui.engine.judgments;"
        "c.build_parser();"
        "bad = [m for m in ('torch', 'transformers', 'PySide6') if m in sys.modules];"
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
