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


_PROFILE_WRITES = (
    "add_folder", "folder_scanned", "ensure_image", "write_images", "write_import_batch", "move_image",
    "mark_missing", "set_mark", "set_burst", "replace_automatic_bursts", "put_features",
    "put_features_many", "add_choice", "add_choices", "delete_choice", "add_judgment", "put_scores",
    "put_scores_many", "create_run", "update_run", "save_adapter", "set_active_adapter",
)  # fmt: skip


def _profile_calls(path: Path, names: tuple[str, ...]) -> list[str]:
    """`<...profile>.name(` calls in a module (the receiver's last name mentions the profile)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in names:
            receiver = node.func.value
            label = receiver.attr if isinstance(receiver, ast.Attribute) else getattr(receiver, "id", "")
            if "profile" in label:
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {node.func.attr}")
    return found


def test_views_write_to_the_profile_only_through_services() -> None:
    offenders = [hit for p in (PACKAGE / "qt").rglob("*.py") for hit in _profile_calls(p, _PROFILE_WRITES)]
    assert offenders == [], "write through a service (it commits, then announces the change)"


def test_scores_are_stored_only_by_the_scoring_service() -> None:
    offenders = [
        hit
        for p in PACKAGE.rglob("*.py")
        if p.relative_to(PACKAGE).as_posix() != "services/scoring.py"
        for hit in _profile_calls(p, ("put_scores", "put_scores_many"))
    ]
    assert offenders == [], "store scores with services.scoring.write_scores (the single writer)"


def test_nothing_cites_documents_outside_the_repository() -> None:
    """Code, tests, benchmarks, resources and docs cite docs/method.md, never the project's private notes."""
    root = Path(__file__).resolve().parents[1]
    # spelled in pieces so that this test does not find itself
    outside = ("SP" + "EC §", "SP" + "EC.md", "ENVIRON" + "MENT.md", "../" + "sha" + "red/", "see" + "ds/")
    offenders = []
    for folder in ("aesthete_gui", "tests", "benchmarks", "docs", "resources", "packaging", "models"):
        for path in (root / folder).rglob("*"):
            if path.suffix not in {".py", ".md", ".toml", ".sh", ".spec", ".txt"} or "data" in path.parts[-3:-1]:
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            offenders += [f"{path.relative_to(root)}: {word}" for word in outside if word in text]
    assert offenders == []
