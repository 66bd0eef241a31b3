"""docs/architecture.md against the code: its layers, module lists, profile table and command table
match the code, every test and contract it names exists, and the rules it states that no import
contract covers are checked here by reading the code (AST)."""

from __future__ import annotations

import argparse
import ast
import importlib
import re
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "aesthete_gui"
DOC = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
CONTRACTS = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]["contracts"]


def _relative(path: Path) -> str:
    return path.relative_to(PACKAGE).as_posix()


def _sources() -> Iterator[tuple[str, ast.Module]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        yield _relative(path), ast.parse(path.read_text(encoding="utf-8"))


def _imported_roots(tree: ast.Module) -> Iterator[tuple[int, str, str]]:
    """(line, top-level package, full module) of every import, at any depth (functions included)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name.split(".")[0], alias.name
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.lineno, node.module.split(".")[0], node.module


def _layers() -> list[set[str]]:
    contract = next(c for c in CONTRACTS if c["name"].startswith("Layers: entry points"))
    return [{n.strip().removeprefix("aesthete_gui.") for n in layer.split("|")} for layer in contract["layers"]]


def _doc_table(heading: str) -> list[list[str]]:
    """The rows of the first table after `heading`, as lists of cells (the header row left out)."""
    section = DOC.split(heading, 1)[1]
    rows = []
    for line in section.splitlines():
        if line.startswith("|"):
            rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
        elif rows:
            break
    return [row for row in rows[2:]]


def _names(cell: str) -> set[str]:
    return set(re.findall(r"`([^`]+)`", cell))


def test_every_module_is_in_a_layer_and_in_this_document() -> None:
    """Each top-level module or package of aesthete_gui is a layer of the contract (and the doc's
    diagram shows the contract's layers in order); each package's modules are the doc's list."""
    layers = _layers()
    in_layers = set().union(*layers)
    top = {p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__"}
    top |= {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    assert top == in_layers, f"not in a layer: {sorted(top - in_layers)}; no such module: {sorted(in_layers - top)}"

    diagram = DOC.split("```", 2)[1].strip().splitlines()
    shown = [
        {name.strip().removesuffix(".py").removesuffix("/") for name in line.split("  ")[0].split("│")}
        for line in diagram
    ]
    assert shown == layers, "the diagram in docs/architecture.md lists the contract's layers in order"

    listed = {row[0].strip("`"): _names(row[1]) for row in _doc_table("## Where things live")}
    packages = {_relative(p.parent) + "/": p.parent for p in PACKAGE.rglob("__init__.py") if p.parent != PACKAGE}
    actual = {name: {p.stem for p in folder.glob("*.py") if p.stem != "__init__"} for name, folder in packages.items()}
    actual["(top level)"] = {p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__"}
    assert set(listed) == set(actual)
    for package, modules in actual.items():
        assert listed[package] == modules, (package, sorted(modules ^ listed[package]))


def test_only_qt_imports_qt() -> None:
    offenders = [
        f"{name}:{line} {module}"
        for name, tree in _sources()
        if not name.startswith("qt/") and name != "app.py"
        for line, root, module in _imported_roots(tree)
        if root in {"PySide6", "shiboken6", "qasync"}
    ]
    assert offenders == []


def test_only_the_model_layers_import_torch() -> None:
    heavy = {"torch", "torchvision", "transformers", "peft", "trl", "accelerate", "deepspeed"}
    offenders = [
        f"{name}:{line} {module}"
        for name, tree in _sources()
        if not name.startswith(("ml/", "training/"))
        for line, root, module in _imported_roots(tree)
        if root in heavy
    ]
    assert offenders == []


def test_importing_the_core_loads_neither_torch_nor_qt() -> None:
    """Every module outside qt/ and the entry points imports without torch or Qt (the fork server's
    preload is left out: importing it arms a signal for the importing process)."""
    names = [
        "aesthete_gui." + name.removesuffix(".py").replace("/", ".").removesuffix(".__init__")
        for name, _ in _sources()
        if not name.startswith("qt/")
        and name not in {"app.py", "__main__.py", "forkserver_guard.py", "__init__.py"}
        and not Path(name).name.startswith("_torch")
    ]
    code = (
        "import importlib, sys\n"
        f"for name in {names!r}:\n"
        "    importlib.import_module(name)\n"
        "print(','.join(m for m in ('torch', 'transformers', 'torchvision', 'PySide6', 'qasync') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip() == ""


def test_the_cli_exceptions_are_the_ones_listed_here() -> None:
    contract = next(c for c in CONTRACTS if c["name"].startswith("cli/ reaches training/"))
    declared = {tuple(s.replace("aesthete_gui.", "").split(" -> ")) for s in contract["ignore_imports"]}
    listed = set(re.findall(r"^\s*- `(cli\.\w+)` → `([\w.]+)`$", DOC, flags=re.MULTILINE))
    assert listed == declared


def _docstrings(tree: ast.Module) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def test_only_engine_scorers_spells_scorer_kinds() -> None:
    """No text outside engine/scorers.py starts with a scorer kind's prefix ("student:", "taste:" …),
    docstrings aside: ids are built and read with ScorerId."""
    from aesthete_gui.engine.scorers import ScorerKind

    prefixes = tuple(f"{kind.value}:" for kind in ScorerKind if kind is not ScorerKind.BUILTIN)
    offenders = []
    for name, tree in _sources():
        if name == "engine/scorers.py":
            continue
        docstrings = _docstrings(tree)
        offenders += [
            f"{name}:{node.lineno} {node.value!r}"
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and id(node) not in docstrings and node.value.startswith(prefixes)
        ]
    assert offenders == []


def _mentions(tree: ast.Module, word: str) -> bool:
    return any(
        (isinstance(node, ast.Name) and node.id == word) or (isinstance(node, ast.Attribute) and node.attr == word)
        or (isinstance(node, ast.alias) and node.name == word)
        for node in ast.walk(tree)
    )


def test_every_file_chooser_comes_from_file_dialogs() -> None:
    offenders = [name for name, tree in _sources() if name != "qt/file_dialogs.py" and _mentions(tree, "QFileDialog")]
    assert offenders == []


def _calls(tree: ast.Module, attribute: str, receiver: str | None = None) -> list[ast.Call]:
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == attribute
        and (receiver is None or (isinstance(node.func.value, ast.Name) and node.func.value.id == receiver))
    ]


def _imports_name(tree: ast.Module, module_prefix: str, names: set[str]) -> bool:
    return any(
        isinstance(node, ast.ImportFrom) and (node.module or "").startswith(module_prefix)
        and any(alias.name in names for alias in node.names)
        for node in ast.walk(tree)
    )


def test_weights_are_read_in_three_modules_only() -> None:
    readers: dict[str, set[str]] = {"from_pretrained": set(), "torch.load": set(), "safetensors": set()}
    for name, tree in _sources():
        if _calls(tree, "from_pretrained"):
            readers["from_pretrained"].add(name)
        if _calls(tree, "load", receiver="torch"):
            readers["torch.load"].add(name)
        if _imports_name(tree, "safetensors", {"load_file", "load", "safe_open"}):
            readers["safetensors"].add(name)
    assert readers == {
        "from_pretrained": {"ml/loading.py"},
        "torch.load": {"ml/_torch_efficientnet_lite.py"},
        "safetensors": {"training/distill.py"},
    }


def test_only_model_files_downloads() -> None:
    fetchers = {"snapshot_download", "hf_hub_download", "hf_hub_url"}
    users = {name for name, tree in _sources() if _imports_name(tree, "huggingface_hub", fetchers)}
    assert users == {"ml/model_files.py", "ml/registry.py"}
    registry = ast.parse((PACKAGE / "ml" / "registry.py").read_text(encoding="utf-8"))
    calls = [n for n in ast.walk(registry) if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "snapshot_download"]
    assert calls
    for call in calls:  # the registry only looks in the local cache
        assert any(k.arg == "local_files_only" and getattr(k.value, "value", None) is True for k in call.keywords)


def test_only_face_models_runs_litert() -> None:
    users = {name for name, tree in _sources() for _, root, _ in _imported_roots(tree) if root == "ai_edge_litert"}
    assert users == {"imaging/face_models.py"}


def test_the_profile_is_the_repositories_listed_here(tmp_path: Path) -> None:
    from aesthete_gui.store.db import Profile
    from aesthete_gui.store.repository import Repository

    profile = Profile(tmp_path / "never-opened.db")  # repositories are built without a connection
    built = {
        name: type(repo).__module__.removeprefix("aesthete_gui.").replace(".", "/") + ".py"
        for name, repo in vars(profile).items()
        if isinstance(repo, Repository)
    }
    listed = {row[0].strip("`"): row[1].strip("`") for row in _doc_table("## The profile")}
    assert listed == built


def _registered(module_name: str) -> set[str]:
    module = importlib.import_module(f"aesthete_gui.cli.{module_name}")
    parser = argparse.ArgumentParser()
    subparsers = parser.add_subparsers()
    module.register(subparsers)
    return set(subparsers.choices)


def test_each_cli_module_registers_the_commands_it_is_named_for() -> None:
    modules = {p.stem for p in (PACKAGE / "cli").glob("*.py") if p.stem not in ("__init__", "__main__")}
    commands = {
        name: _registered(name)
        for name in sorted(modules)
        if hasattr(importlib.import_module(f"aesthete_gui.cli.{name}"), "register")
    }
    assert modules - set(commands) == {"common", "taste_json"}  # helpers: they register nothing
    for name, registered in commands.items():
        assert registered == {name.removesuffix("_").replace("_", "-")}, (name, registered)
    listed = {row[0].strip("`"): _names(row[1]) for row in _doc_table("## The CLI")}
    assert listed == commands


def test_every_test_and_contract_named_here_exists() -> None:
    cited = re.findall(r"`(tests/[\w/]+\.py)(?:::(\w+))?`", DOC)
    assert len(cited) > 40
    missing = []
    for file, test in cited:
        path = ROOT / file
        if not path.is_file():
            missing.append(file)
        elif test and not re.search(rf"^(async )?def {test}\(", path.read_text(encoding="utf-8"), flags=re.MULTILINE):
            missing.append(f"{file}::{test}")
    assert missing == []

    text = " ".join(DOC.split())
    names = [c["name"] for c in CONTRACTS]
    quoted = [
        q.removesuffix("…").strip()
        for group in re.findall(r'contracts?\s+((?:"[^"]*"(?:\s+and\s+)?)+)', text, flags=re.IGNORECASE)
        for q in re.findall(r'"([^"]*)"', group)
    ]
    assert len(quoted) >= 6
    assert [q for q in quoted if not any(n.startswith(q) for n in names)] == []


def test_the_makefile_installs_a_pinned_torch_pair_first() -> None:
    lines = (ROOT / "Makefile").read_text(encoding="utf-8").splitlines()
    pair = next(i for i, line in enumerate(lines) if '"torch==' in line and '"torchvision==' in line)
    package = next(i for i, line in enumerate(lines) if '-e ".[dev]"' in line)
    assert "--isolated" in lines[pair] and pair < package
