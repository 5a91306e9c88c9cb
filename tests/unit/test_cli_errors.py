"""Malformed input is one line on every path: ``kzc: error: ...`` on stderr, exit 2, and with ``--json`` one
JSON object ``{"error": ...}`` on stdout. Generated from the command registry, so a new command is covered."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from cli.commands import runnable_commands
from cli.main import build_parser, main

COMMANDS = runnable_commands(build_parser())
# No command may connect anywhere in these tests: any cluster a command tried to reach would be this one.
NOWHERE = ["--zookeeper", "127.0.0.1:1", "--session-timeout", "1"]


def _typed_options() -> list[tuple[str, str, str]]:
    """(command, option, bad value) for every option of every command that takes a number or a choice."""
    found = []
    for words, parser in COMMANDS.items():
        for action in parser._actions:
            if not action.option_strings or isinstance(action, argparse._HelpAction):
                continue
            if action.choices is not None:
                found.append((" ".join(words), action.option_strings[0], "no-such-choice"))
            elif action.type in (int, float):
                found.append((" ".join(words), action.option_strings[0], "not-a-number"))
    return found


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _assert_one_line(code: int, out: str, err: str, as_json: bool) -> str:
    assert code == 2, (out, err)
    [line] = err.splitlines()
    assert line.startswith("kzc: error: ") and "usage:" not in err
    if as_json:
        assert json.loads(out) == {"error": line.removeprefix("kzc: error: ")}
    else:
        assert out == ""
    return line


@pytest.fixture(autouse=True)
def _no_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("KZC_CONFIG", str(tmp_path / "none.toml"))
    monkeypatch.setenv("KZC_AUDIT_LOG", str(tmp_path / "audit.jsonl"))


@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
@pytest.mark.parametrize("command", sorted(" ".join(w) for w in COMMANDS))
def test_an_unknown_option_is_one_line_and_one_json_object(
    command: str, as_json: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [*command.split(), "--no-such-option", *(["--json"] if as_json else []), *NOWHERE]
    line = _assert_one_line(*_run(argv, capsys), as_json)
    # argparse names what is wrong first: a missing required argument, else the unknown option.
    assert ("--no-such-option" in line or "required" in line) and f"(see kzc {command} --help)" in line


@pytest.mark.parametrize(("command", "option", "value"), _typed_options())
def test_a_malformed_value_is_one_json_object(
    command: str, option: str, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [*command.split(), option, value, "--json", *NOWHERE]
    line = _assert_one_line(*_run(argv, capsys), as_json=True)
    assert option in line or value in line


@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_an_unknown_command_is_one_line(as_json: bool, capsys: pytest.CaptureFixture[str]) -> None:
    line = _assert_one_line(*_run(["no-such-command", *(["--json"] if as_json else [])], capsys), as_json)
    assert "no-such-command" in line


def test_a_missing_required_argument_is_one_json_object(capsys: pytest.CaptureFixture[str]) -> None:
    line = _assert_one_line(*_run(["topic", "create", "--json", *NOWHERE], capsys), as_json=True)
    assert "required" in line


def test_a_malformed_connect_string_is_one_json_object(capsys: pytest.CaptureFixture[str]) -> None:
    line = _assert_one_line(*_run(["describe", "--json", "--zookeeper", "zk1:abc"], capsys), as_json=True)
    assert "zk1:abc" in line
