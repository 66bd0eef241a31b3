"""Fixtures for training tests: the tiny random Qwen2.5-VL built once per session (no network)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fixtures.tiny_models import build_tiny_qwen25_vl


@pytest.fixture(scope="session")
def tiny_qwen25_vl(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny random Qwen2.5-VL checkpoint folder (safetensors + processor)."""
    return build_tiny_qwen25_vl(tmp_path_factory.mktemp("tiny-qwen25-vl"))
