"""Every CLI command has help text (the sqlite-utils habit)."""

from __future__ import annotations

import argparse

from aesthete_gui.cli import build_parser, main


def _subcommand_parsers(parser: argparse.ArgumentParser, prefix: str = ""):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help for a in action._choices_actions}
            for name, sub in action.choices.items():
                yield f"{prefix}{name}", helps.get(name), sub
                yield from _subcommand_parsers(sub, f"{prefix}{name} ")


def test_every_command_has_help() -> None:
    missing = [name for name, text, _ in _subcommand_parsers(build_parser()) if not text]
    assert missing == []


def test_no_command_prints_usage(capsys) -> None:
    assert main([]) == 0
    assert "aesthete" in capsys.readouterr().out
