"""The registry of history questions: one unit per question (``core.history.question``), in its own module.

``QUESTIONS`` lists them in the order ``kzc history`` offers them; the CLI dispatches through it and
``tests/unit/test_history_registry.py`` holds each to both rules, a CLI entry and a docs paragraph.
"""

from __future__ import annotations

from core.history import flapping, isr, traffic, urp
from core.history.question import Question

QUESTIONS: tuple[Question, ...] = (isr.QUESTION, flapping.QUESTION, urp.QUESTION, traffic.QUESTION)
BY_NAME: dict[str, Question] = {q.name: q for q in QUESTIONS}
FLEET_QUESTIONS: tuple[str, ...] = tuple(q.name for q in QUESTIONS if q.fleet)
