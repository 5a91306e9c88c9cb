"""Every registered history question is a whole unit: both rules side by side with its ``ask``, a CLI entry
and a docs paragraph; ``kzc history`` offers exactly the registry. No JVM needed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cli.history_cmd import ENTRIES, FLEET
from cli.main import build_parser
from core.history.question import Question
from core.history.questions import BY_NAME, QUESTIONS
from core.history.urp import QUESTION as URP

DOCS = Path(__file__).resolve().parents[2] / "docs" / "history.md"


def names(questions: tuple[Question, ...]) -> list[str]:
    return [q.name for q in questions]


def test_the_registry_names_each_question_once() -> None:
    assert len(BY_NAME) == len(QUESTIONS)


@pytest.mark.parametrize("question", QUESTIONS, ids=names(QUESTIONS))
def test_each_question_has_both_rules_beside_its_ask(question: Question) -> None:
    assert callable(question.local) and callable(question.spark) and question.local is not question.spark
    assert question.local.__module__ == question.spark.__module__ == question.ask.__module__
    assert question.ask.__module__ == f"core.history.{question.name}"


@pytest.mark.parametrize("question", QUESTIONS, ids=names(QUESTIONS))
def test_each_question_has_a_cli_entry_and_a_docs_paragraph(question: Question) -> None:
    assert question.name in ENTRIES, f"{question.name}: no entry in cli/history_cmd.py"
    args = build_parser().parse_args(["history", question.name, *_required(question.name)])
    assert args.history_command == question.name
    assert re.search(rf"^### kzc history {question.name}\b", DOCS.read_text(), re.M)


def test_the_cli_offers_exactly_the_registry() -> None:
    assert list(ENTRIES) == names(QUESTIONS)


def test_the_fleet_questions_are_the_documented_ones() -> None:
    heading = re.search(rf"^### A fleet: `--cluster {FLEET}` \((.*)\)$", DOCS.read_text(), re.M)
    assert heading is not None
    assert heading.group(1) == " and ".join(q.name for q in QUESTIONS if q.fleet)


def test_a_question_keeps_its_rules_side_by_side() -> None:
    with pytest.raises(ValueError, match="not side by side"):
        Question("urp", URP.summary, URP.local, names, URP.ask)


def _required(name: str) -> list[str]:
    return ["--topic", "t"] if name == "isr" else []
