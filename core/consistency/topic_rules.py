"""Kafka's topic-name rules as the checks apply them: validity (3.4+ wording) and collision keys.

A small adapter: ``core.kafka.names`` (another module, in progress) owns these rules for creating
topics; the checks need the two functions below with exactly this output, because the Spark job
reproduces them in SQL and both engines must agree word for word (zk-layout §6).
"""

from __future__ import annotations

import re

MAX_NAME_LENGTH = 249
LEGAL_NAME = re.compile(r"[a-zA-Z0-9._-]+")


def name_problem(name: str) -> str | None:
    """Kafka 3.4+'s ``Topic.validate`` message for ``name``, or ``None`` when the name is valid.

    The rules are checked in Kafka's order: empty, ``.``/``..``, length (249), characters.
    """
    if not name:
        return "Topic name is invalid: the empty string is not allowed"
    if name in (".", ".."):
        return f"Topic name is invalid: '{name}' is not allowed"
    if java_length(name) > MAX_NAME_LENGTH:
        return f"Topic name is invalid: the length of '{name}' is longer than the max allowed length 249"
    if not LEGAL_NAME.fullmatch(name):
        return (
            f"Topic name is invalid: '{name}' contains one or more characters other than ASCII alphanumerics, "
            "'.', '_' and '-'"
        )
    return None


def java_length(text: str) -> int:
    """``String.length()`` in Java: UTF-16 code units (a character beyond U+FFFF counts twice)."""
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def collision_key(name: str) -> str:
    """Names with equal keys collide (``Topic.hasCollision``: every ``.`` read as ``_``)."""
    return name.replace(".", "_")
