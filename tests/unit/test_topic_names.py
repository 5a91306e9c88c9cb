"""core.kafka.names: Kafka 3.4+ ``Topic.validate`` rules, collisions and internal topics.

Every message below was checked against ``org.apache.kafka.common.internals.Topic`` in
kafka-clients 3.9.1; the collision orders were recorded from scala-library 2.13.15.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.errors import KafkaRuleError
from core.kafka.names import (
    INTERNAL_TOPICS,
    MAX_NAME_LENGTH,
    collisions,
    has_collision,
    has_collision_chars,
    is_internal,
    is_valid_topic_name,
    name_problem,
    unify_collision_chars,
    validate_topic_name,
)

EMOJI = "\U0001f600"  # two UTF-16 code units in Java


def bad_chars(name: str) -> str:
    return (
        f"Topic name is invalid: '{name}' contains one or more characters other than ASCII alphanumerics, "
        "'.', '_' and '-'"
    )


def too_long(name: str) -> str:
    return f"Topic name is invalid: the length of '{name}' is longer than the max allowed length 249"


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("", "Topic name is invalid: the empty string is not allowed"),
        (".", "Topic name is invalid: '.' is not allowed"),
        ("..", "Topic name is invalid: '..' is not allowed"),
        ("a" * 250, too_long("a" * 250)),
        ("a" * 249 + "!", too_long("a" * 249 + "!")),  # length is checked before characters
        (EMOJI * 125, too_long(EMOJI * 125)),  # 250 UTF-16 units
        (EMOJI * 124, bad_chars(EMOJI * 124)),  # 248 units: the characters fail instead
        ("é" * 249, bad_chars("é" * 249)),
        ("a b", bad_chars("a b")),
        ("a/b", bad_chars("a/b")),
        ("a\n", bad_chars("a\n")),
        ("\uff21", bad_chars("\uff21")),  # fullwidth A is not ASCII
        ("!", bad_chars("!")),
    ],
)
def test_invalid_names_fail_with_kafka_message(name: str, message: str) -> None:
    assert name_problem(name) == message
    assert not is_valid_topic_name(name)
    with pytest.raises(KafkaRuleError) as caught:
        validate_topic_name(name)
    assert (str(caught.value), caught.value.kafka_exception, caught.value.exit_code) == (
        message,
        "InvalidTopicException",
        2,
    )


VALID_NAMES = ["...", "-", "_", "a" * MAX_NAME_LENGTH, "Topic-1.x_y", "__consumer_offsets"]


@pytest.mark.parametrize("name", VALID_NAMES)
def test_valid_names_pass(name: str) -> None:
    assert name_problem(name) is None
    assert is_valid_topic_name(name)
    validate_topic_name(name)


def test_max_name_length_is_249() -> None:
    assert MAX_NAME_LENGTH == 249


@given(st.text(max_size=260))
def test_name_problem_matches_kafka_rules(name: str) -> None:
    utf16_length = len(name.encode("utf-16-le", "surrogatepass")) // 2
    valid = (
        name not in ("", ".", "..")
        and utf16_length <= 249
        and re.fullmatch(r"[a-zA-Z0-9._-]+", name, flags=re.ASCII) is not None
    )
    assert (name_problem(name) is None) == valid


@pytest.mark.parametrize(
    ("name", "expected"),
    [("a.b", True), ("a_b", True), ("a-b", False), ("ab", False), ("..", True)],
)
def test_has_collision_chars(name: str, expected: bool) -> None:
    assert has_collision_chars(name) is expected


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ("test.topic", "test_topic", True),
        ("test.topic", "test.topic", True),  # equal names collide
        ("a._", "a_.", True),
        ("a-b", "a_b", False),
        ("a.b", "a.c", False),
    ],
)
def test_has_collision(a: str, b: str, expected: bool) -> None:
    assert has_collision(a, b) is expected
    assert has_collision(b, a) is expected


def test_unify_collision_chars_replaces_dots() -> None:
    assert unify_collision_chars("a.b_c.") == "a_b_c_"


def test_collisions_up_to_four_topics_keep_zookeeper_order() -> None:
    assert collisions("a.b", ["x", "a_b", "y", "a.b"]) == ["a_b", "a.b"]


def test_collisions_from_five_topics_use_scala_hash_order() -> None:
    # Recorded: Set(...).filter(Topic.hasCollision(name, _)).mkString in Scala 2.13.
    assert collisions("a.b", ["a_b", "x", "a.b", "y", "z", "w", "a_c"]) == ["a.b", "a_b"]
    existing = ["test_topic", "test.topic", "other", "more", "andmore", "t_t", "t.t", "x.y", "x_y"]
    assert collisions("test_topic", existing) == ["test.topic", "test_topic"]
    assert collisions("t.t", existing) == ["t.t", "t_t"]


def test_collisions_none() -> None:
    assert collisions("abc", ["abd", "ab_c"]) == []


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("__consumer_offsets", True),
        ("__transaction_state", True),
        ("__share_group_state", True),
        ("__cluster_metadata", False),
        ("consumer_offsets", False),
    ],
)
def test_is_internal(name: str, expected: bool) -> None:
    assert is_internal(name) is expected


def test_internal_topics_set() -> None:
    assert frozenset({"__consumer_offsets", "__transaction_state", "__share_group_state"}) == INTERNAL_TOPICS
