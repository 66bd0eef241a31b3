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


def _repository_writers() -> dict[str, set[str]]:
    """{attribute of Profile: names of its repository's writing methods}, read from the `@writes`
    marker in the code, plus the database's own `transaction`."""
    import tempfile

    from aesthete_gui.store.connection import ProfileDatabase
    from aesthete_gui.store.db import Profile
    from aesthete_gui.store.repository import Repository, is_writer

    with tempfile.TemporaryDirectory() as folder:
        profile = Profile(Path(folder) / "never-opened.db")  # repositories are built without a connection
        writers = {
            name: {m for m in dir(type(repo)) if is_writer(getattr(type(repo), m))}
            for name, repo in vars(profile).items()
            if isinstance(repo, Repository)
        }
    writers["database"] = {m for m in dir(ProfileDatabase) if m == "transaction"}
    return writers


def _writer_calls(path: Path, writers: dict[str, set[str]]) -> list[str]:
    """Calls `<...>.<repository>.<writing method>(` (or on a local named like the repository)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        receiver = node.func.value
        name = receiver.attr if isinstance(receiver, ast.Attribute) else getattr(receiver, "id", "")
        if node.func.attr in writers.get(name, ()):
            found.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {name}.{node.func.attr}")
    return found


def test_every_repository_writes_something() -> None:
    """The marker is in use: each repository of the profile has writing methods (the views test
    below would pass vacuously otherwise)."""
    writers = _repository_writers()
    assert {"catalog", "marks", "checks", "choices", "judgments", "scores", "runs", "adapters", "sidecars"} <= set(writers)
    assert all(writers.values()), writers


def test_views_call_no_repository_writer() -> None:
    """qt/ reads repositories and writes through services/ (which the repositories' events announce)."""
    writers = _repository_writers()
    offenders = [hit for p in (PACKAGE / "qt").rglob("*.py") for hit in _writer_calls(p, writers)]
    assert offenders == [], "write through a service; the repository announces the change"


def test_scores_are_stored_only_by_the_scoring_service() -> None:
    writers = {"scores": _repository_writers()["scores"]}
    offenders = [
        hit
        for p in PACKAGE.rglob("*.py")
        if p.relative_to(PACKAGE).as_posix() not in ("services/scoring.py", "store/scores.py")
        for hit in _writer_calls(p, writers)
    ]
    assert offenders == [], "store scores with services.scoring.write_scores (the single writer)"


def test_only_the_store_publishes_profile_events() -> None:
    """No hand-called announcement: events are published by the store after a commit (its database,
    its change feed), never by a service or a view."""
    allowed = {"store/connection.py", "store/change_feed.py", "store/hub.py"}
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        if path.relative_to(PACKAGE).as_posix() in allowed:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        offenders += [
            f"{path.relative_to(PACKAGE)}:{node.lineno}"
            for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "publish"
        ]
    assert offenders == []


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
