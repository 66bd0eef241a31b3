"""Architecture rules: Qt only under qt/, torch/transformers only under ml/ and training/."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "aesthete_gui"


def _imported_roots(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    roots: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


def _module_level_roots(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    roots: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


def test_qt_imported_only_in_qt_package() -> None:
    offenders = [
        str(p.relative_to(PACKAGE))
        for p in PACKAGE.rglob("*.py")
        if "qt" not in p.relative_to(PACKAGE).parts[:1]
        and _imported_roots(p) & {"PySide6", "qasync", "pyqtgraph"}
    ]
    assert offenders == []


def test_torch_imported_only_in_model_layers() -> None:
    allowed = {"ml", "training"}
    offenders = [
        str(p.relative_to(PACKAGE))
        for p in PACKAGE.rglob("*.py")
        if p.relative_to(PACKAGE).parts[0] not in allowed
        and _imported_roots(p) & {"torch", "transformers", "torchvision", "peft", "trl"}
    ]
    assert offenders == []


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
