"""Concurrency to an OpenAI-compatible judge is a setting: environment default, per-spec override."""

from __future__ import annotations

import pytest

from aesthete_gui.services.compare import CONCURRENCY_ENV, JudgeSpec, open_judge, remote_concurrency


def test_default_is_four_and_the_environment_overrides_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(CONCURRENCY_ENV, raising=False)
    assert remote_concurrency() == 4
    monkeypatch.setenv(CONCURRENCY_ENV, "64")
    assert remote_concurrency() == 64
    assert JudgeSpec(model="m", endpoint="http://127.0.0.1:9/v1").concurrency == 64


@pytest.mark.parametrize("text", ["0", "-3", "many", "2.5"])
def test_bad_values_are_refused_with_the_variable_named(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    monkeypatch.setenv(CONCURRENCY_ENV, text)
    with pytest.raises(ValueError, match=CONCURRENCY_ENV):
        remote_concurrency()


def test_the_remote_judge_gets_the_spec_concurrency(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(CONCURRENCY_ENV, raising=False)
    spec = JudgeSpec(model="m", endpoint="http://127.0.0.1:9/v1", concurrency=16)
    judge = open_judge(spec)
    assert judge.max_concurrency == 16


def test_cli_concurrency_option(monkeypatch: pytest.MonkeyPatch) -> None:
    import argparse

    from aesthete_gui.cli.common import UserError
    from aesthete_gui.cli.judge import _concurrency

    assert _concurrency(argparse.Namespace(concurrency=None)) is None  # the spec's own default
    assert _concurrency(argparse.Namespace(concurrency=32)) == 32
    with pytest.raises(UserError):
        _concurrency(argparse.Namespace(concurrency=0))
