"""docs/guarantees.md names only tests that exist: a promise whose test is renamed or gone fails here."""

from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
REFERENCE = re.compile(r"`([\w/]+\.py)(?:::(\w+))?`")


def _test_names(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test_")
    }


def test_every_test_named_on_the_guarantees_page_exists() -> None:
    page = (REPO / "docs" / "guarantees.md").read_text(encoding="utf-8")
    tests = [(f, t) for f, t in REFERENCE.findall(page) if Path(f).name.startswith("test_")]
    assert len(tests) > 30
    missing = []
    for file, name in tests:
        path = REPO / "tests" / file
        if not path.is_file() or (name and name not in _test_names(path)):
            missing.append(f"{file}::{name}")
    assert missing == []
