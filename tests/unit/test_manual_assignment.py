"""core.kafka.manual_assignment and the JVM semantics it relies on (core.kafka.java).

Expected values marked "recorded" come from running the real code: ``TopicCommand.parseReplicaAssignment``
(kafka-tools 3.9.1), ``AdminZkClient.validateTopicCreate`` / ``createNewPartitionsAssignment`` and the
CreatePartitions checks of ``ZkAdminManager`` (kafka_2.13 3.9.1), on OpenJDK 17 with scala-library 2.13.15.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.errors import KafkaRuleError
from core.kafka.java import (
    JavaNumberFormatError,
    java_hash_set_order,
    java_list_str,
    java_parse_int,
    java_split,
    java_string_hash,
    java_string_sort_key,
    java_trim,
    scala_int_set_order,
    scala_mutable_hash_map_order,
    scala_string_set_order,
    to_int32,
)
from core.kafka.manual_assignment import (
    parse_expansion_assignment,
    parse_replica_assignment,
    parse_replica_assignment_option,
    validate_create_assignment,
    validate_create_partitions_request,
    validate_expansion_assignment,
)


def assert_kafka_error(error: pytest.ExceptionInfo[KafkaRuleError], exception: str, message: str) -> None:
    assert (error.value.kafka_exception, str(error.value)) == (exception, message)


# --- Java semantics ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "separator", "expected"),
    [
        ("", ",", [""]),  # no match: the string itself
        (",", ",", []),  # all pieces trailing empties
        (",,", ",", []),
        ("1:2,", ",", ["1:2"]),
        ("1:2,,", ",", ["1:2"]),
        (",1", ",", ["", "1"]),  # leading empty kept
        ("1,,2", ",", ["1", "", "2"]),  # middle empty kept
        ("1:", ":", ["1"]),
        (":1", ":", ["", "1"]),
        ("abc", ":", ["abc"]),
    ],
)
def test_java_split_drops_only_trailing_empties(text: str, separator: str, expected: list[str]) -> None:
    assert java_split(text, separator) == expected


def test_java_split_refuses_regex_separators() -> None:
    with pytest.raises(ValueError, match="one literal character"):
        java_split("a.b", ".")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (" \t\n1\x00 ", "1"),
        ("\x1f2\x20", "2"),
        ("\u00a01", "\u00a01"),  # NBSP is above U+0020: Java keeps it
        ("\u20001\u3000", "\u20001\u3000"),
        ("", ""),
        ("   ", ""),
    ],
)
def test_java_trim_strips_only_chars_up_to_space(text: str, expected: str) -> None:
    assert java_trim(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("0", 0),
        ("+4", 4),
        ("-0", 0),
        ("007", 7),
        ("2147483647", 2147483647),
        ("-2147483648", -2147483648),
        ("\u0663", 3),  # ARABIC-INDIC DIGIT THREE: Character.digit accepts Unicode Nd digits
        ("\uff11\uff12", 12),  # fullwidth digits
        ("-\u0967\u0966", -10),  # Devanagari
    ],
)
def test_java_parse_int_accepts(text: str, expected: int) -> None:
    assert java_parse_int(text) == expected


@pytest.mark.parametrize(
    "text",
    ["", "+", "-", "++1", "1+", "0x1", "1 2", " 1", "1.0", "a", "2147483648", "-2147483649", "99999999999",
     "\U0001d7ce",  # MATHEMATICAL BOLD DIGIT ZERO: a surrogate pair in Java, so not a digit
     "\u2160"],  # ROMAN NUMERAL ONE is Nl, not Nd
)  # fmt: skip
def test_java_parse_int_rejects_with_for_input_string(text: str) -> None:
    with pytest.raises(JavaNumberFormatError) as caught:
        java_parse_int(text)
    assert str(caught.value) == f'For input string: "{text}"'


@given(st.integers(-(2**31), 2**31 - 1))
def test_java_parse_int_round_trips_every_int(value: int) -> None:
    assert java_parse_int(str(value)) == value


def test_java_string_order_and_hash() -> None:
    assert sorted(["a", "B", "A", "\uff21", "\U0001f600"], key=java_string_sort_key) == [
        "A", "B", "a", "\U0001f600", "\uff21",
    ]  # fmt: skip
    assert [java_string_hash(s) for s in ("", "a", "Aa", "BB", "polygenelubricants")] == [
        0, 97, 2112, 2112, -2147483648,
    ]  # fmt: skip


def test_java_list_str() -> None:
    assert java_list_str([2, 1]) == "[2, 1]"
    assert java_list_str([]) == "[]"


def test_to_int32_wraps() -> None:
    assert (to_int32(2**31), to_int32(-(2**31) - 1), to_int32(5)) == (-(2**31), 2**31 - 1, 5)


@pytest.mark.parametrize(
    ("inserted", "expected"),
    [
        ([3, 1, 2], [1, 2, 3]),
        ([17, 1, 16, 0], [16, 0, 17, 1]),  # 16 buckets: 0 and 16 share bucket 0, insertion order within
        ([-1, 0, 17, 16], [-1, 0, 16, 17]),  # -1 spreads to 0xFFFF0000: bucket 0
        # Recorded: 12 keys resize the table to 32 before the 13th, bucket order then.
        ([0, 16, 32, -1, 17, 1, 48, 64, 80, 96, 112, 128], [0, 32, -1, 64, 96, 128, 1, 16, 48, 80, 112, 17]),
        # Recorded: 12 keys sharing a bucket of a 64-slot table become a red-black tree; its root moves first.
        ([64 * k for k in range(12)], [192, 0, 64, 128, 256, 320, 384, 448, 512, 576, 640, 704]),
    ],
)
def test_java_hash_set_order(inserted: list[int], expected: list[int]) -> None:
    assert java_hash_set_order(inserted) == expected


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ([3, 1, 2], [3, 1, 2]),  # Set1..Set4 keep insertion order
        ([9, 8, 7, 6], [9, 8, 7, 6]),
        ([0, 1, 2, 13, 14, 5], [0, 5, 14, 1, 13, 2]),  # recorded HashSet (CHAMP) order
    ],
)
def test_scala_int_set_order(values: list[int], expected: list[int]) -> None:
    assert scala_int_set_order(values) == expected


def test_scala_string_set_order_recorded() -> None:
    topics = ["test_topic", "test.topic", "other", "more", "andmore", "t_t", "t.t", "x.y", "x_y"]
    assert scala_string_set_order(topics) == [
        "andmore", "test.topic", "x_y", "t_t", "test_topic", "more", "other", "x.y", "t.t",
    ]  # fmt: skip


def test_scala_mutable_hash_map_order() -> None:
    assert scala_mutable_hash_map_order([-1, -17, 40]) == [-1, -17, 40]  # recorded
    assert scala_mutable_hash_map_order(list(range(19, -1, -1))) == list(range(20))


# --- parse_replica_assignment ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1:2,3:4,5:6", {0: [1, 2], 1: [3, 4], 2: [5, 6]}),
        ("5:4,3:2,1:0", {0: [5, 4], 1: [3, 2], 2: [1, 0]}),  # TopicCommandTest.testParseAssignment
        ("1:2,3:4,", {0: [1, 2], 1: [3, 4]}),  # trailing empty piece dropped
        (" 1 : 2 ,\t3:4\n", {0: [1, 2], 1: [3, 4]}),  # Java trim on every token
        ("1:", {0: [1]}),
        ("+1:-2", {0: [1, -2]}),
        ("\u0661:\u0662", {0: [1, 2]}),  # Unicode digits
        (",", {}),  # no partitions at all
        (":", {0: []}),
        ("0", {0: [0]}),
    ],
)
def test_parse_replica_assignment_accepts(text: str, expected: dict[int, list[int]]) -> None:
    assert parse_replica_assignment(text) == expected


@pytest.mark.parametrize(
    ("text", "exception", "message"),
    [
        ("", "NumberFormatException", 'For input string: ""'),
        ("1:2,,3:4", "NumberFormatException", 'For input string: ""'),
        (",1", "NumberFormatException", 'For input string: ""'),
        ("1:a", "NumberFormatException", 'For input string: "a"'),
        ("1: 2 3", "NumberFormatException", 'For input string: "2 3"'),  # message shows the trimmed token
        ("0x1", "NumberFormatException", 'For input string: "0x1"'),
        ("2147483648", "NumberFormatException", 'For input string: "2147483648"'),
        ("5:5", "AdminCommandFailedException",
         "Partition replica lists may not contain duplicate entries: 5"),
        ("3:3:1:1:2:2", "AdminCommandFailedException",
         "Partition replica lists may not contain duplicate entries: 1,2,3"),
        ("-1:-1:0:0:17:17:16:16", "AdminCommandFailedException",
         "Partition replica lists may not contain duplicate entries: -1,0,16,17"),  # recorded HashSet order
        ("5:4:3,2:1", "AdminOperationException", "Partition 1 has different replication factor: [2, 1]"),
        ("1,:", "AdminOperationException", "Partition 1 has different replication factor: []"),
        ("1:2,3:3,x", "AdminCommandFailedException",  # pieces checked in order: piece 1 fails first
         "Partition replica lists may not contain duplicate entries: 3"),
        ("1:2,3,4:4", "AdminOperationException", "Partition 1 has different replication factor: [3]"),
    ],
)  # fmt: skip
def test_parse_replica_assignment_rejects(text: str, exception: str, message: str) -> None:
    with pytest.raises(KafkaRuleError) as caught:
        parse_replica_assignment(text)
    assert_kafka_error(caught, exception, message)


def test_parse_duplicates_in_tree_bin_order() -> None:
    ids = ":".join(str(64 * k) for k in range(10))
    with pytest.raises(KafkaRuleError) as caught:
        parse_replica_assignment(f"{ids}:{ids}")
    assert str(caught.value).endswith(": 0,64,128,192,256,320,384,448,512,576")  # recorded


@pytest.mark.parametrize("text", [None, ""])
def test_empty_option_means_no_assignment(text: str | None) -> None:
    assert parse_replica_assignment_option(text) is None


def test_option_with_text_is_parsed() -> None:
    assert parse_replica_assignment_option("1:2") == {0: [1, 2]}


@given(
    st.lists(
        st.lists(st.integers(-(2**31), 2**31 - 1), min_size=2, max_size=2, unique=True),
        min_size=1,
        max_size=20,
    )
)
def test_parse_round_trips_well_formed_lists(lists: list[list[int]]) -> None:
    text = ",".join(":".join(map(str, replicas)) for replicas in lists)
    assert parse_replica_assignment(text) == dict(enumerate(lists))


# --- parse_expansion_assignment -------------------------------------------------------------------


def test_expansion_drops_existing_entries_and_keys_new_partitions() -> None:
    assert parse_expansion_assignment("0:1,1:2,2:3,3:0", 2) == {2: [2, 3], 3: [3, 0]}


def test_expansion_validates_whole_string_including_existing_entries() -> None:
    with pytest.raises(KafkaRuleError, match="duplicate entries: 1"):
        parse_expansion_assignment("1:1,1:2,2:3", 2)
    with pytest.raises(KafkaRuleError, match=r"Partition 1 has different replication factor: \[1\]"):
        parse_expansion_assignment("0:1,1,2:3", 2)


def test_expansion_with_nothing_new_is_empty() -> None:
    assert parse_expansion_assignment("0:1,1:2", 2) == {}
    assert parse_expansion_assignment("0:1,1:2", 5) == {}


def test_expansion_topic_command_3_7_hash_map_order() -> None:
    text = ",".join(f"{2 * i}:{2 * i + 1}" for i in range(17))
    # Recorded: TopicCommand 3.9.1 sends entry 16 before entry 15 (HashMap buckets 0 and 15).
    assert parse_expansion_assignment(text, 15, topic_command_3_7_order=True) == {15: [32, 33], 16: [30, 31]}
    assert parse_expansion_assignment(text, 15) == {15: [30, 31], 16: [32, 33]}


# --- validate_create_assignment -------------------------------------------------------------------


@pytest.mark.parametrize(
    "assignment",
    [
        {0: [1, 2], 1: [2, 3]},
        {0: [9, 8]},  # unknown brokers are accepted on create
        {0: [], 1: []},  # so is replication factor 0 (recorded)
        {-3: [1], 1: [2], 2: [3]},  # Kafka's weak 0-based check (recorded)
        {2147483646: [1], 2147483647: [2], 6: [3]},  # the int sum wraps to 3 = 3*2/2 (recorded)
    ],
)
def test_validate_create_assignment_accepts_what_kafka_accepts(assignment: dict[int, list[int]]) -> None:
    validate_create_assignment(assignment)


@pytest.mark.parametrize(
    ("assignment", "message"),
    [
        ({}, "All partitions should have the same number of replicas"),
        ({0: [1, 2], 1: [3]}, "All partitions should have the same number of replicas"),
        ({1: [1], 2: [2]}, "partitions should be a consecutive 0-based integer sequence"),
        ({0: [1], 2: [2]}, "partitions should be a consecutive 0-based integer sequence"),
        (
            {-1: [1, 1], -17: [2, 3], 40: [0, 4]},
            "Duplicate replica assignment found: HashMap(-1 -> ArrayBuffer(1, 1), -17 -> ArrayBuffer(2, 3), "
            "40 -> ArrayBuffer(0, 4))",
        ),  # recorded
    ],
)
def test_validate_create_assignment_rejects(assignment: dict[int, list[int]], message: str) -> None:
    with pytest.raises(KafkaRuleError) as caught:
        validate_create_assignment(assignment)
    assert_kafka_error(caught, "InvalidReplicaAssignmentException", message)


def test_duplicate_message_prints_whole_map_in_scala_mutable_hash_map_order() -> None:
    assignment = {k: [k % 3, (k + 1) % 3] for k in range(19, -1, -1)}
    assignment[7] = [1, 1]
    with pytest.raises(KafkaRuleError) as caught:
        validate_create_assignment(assignment)
    body = ", ".join(f"{k} -> ArrayBuffer({', '.join(map(str, assignment[k]))})" for k in range(20))
    assert str(caught.value) == f"Duplicate replica assignment found: HashMap({body})"  # recorded


# --- CreatePartitions -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("existing", "target", "exception", "message"),
    [
        ({}, 3, "UnknownTopicOrPartitionException", "The topic 't' does not exist."),
        ({0: [1], 1: [2]}, 1, "InvalidPartitionsException",
         "Topic currently has 2 partitions, which is higher than the requested 1."),
        ({0: [1], 1: [2]}, 2, "InvalidPartitionsException", "Topic already has 2 partitions."),
    ],
)  # fmt: skip
def test_create_partitions_request_checks(
    existing: dict[int, list[int]], target: int, exception: str, message: str
) -> None:
    with pytest.raises(KafkaRuleError) as caught:
        validate_create_partitions_request("t", existing, target)
    assert_kafka_error(caught, exception, message)


EXISTING = {0: [0, 1]}


def validate_zookeeper_path(new: dict[int, list[int]], brokers: list[int], target: int) -> None:
    """The checks of ``kafka-topics --zookeeper --alter`` (up to 2.8): no broker-side ones."""
    validate_expansion_assignment("t", EXISTING, new, brokers, target_partitions=target, broker_checks=False)


@pytest.mark.parametrize(
    ("new", "brokers", "target", "exception", "message"),
    [
        ({1: [0, 9]}, [0, 1, 2], None, "InvalidReplicaAssignmentException",
         "Unknown broker(s) in replica assignment: 9."),
        ({1: [9, 8], 2: [7, 6]}, [0, 1, 2], None, "InvalidReplicaAssignmentException",
         "Unknown broker(s) in replica assignment: 9, 8, 7, 6."),  # <= 4 distinct ids: first-seen order
        ({1: [9, 8], 2: [7, 0], 3: [6, 5]}, [0, 1, 2], None, "InvalidReplicaAssignmentException",
         "Unknown broker(s) in replica assignment: 5, 6, 9, 7, 8."),  # 6 distinct ids: recorded HashSet order
        ({1: [9, 1], 2: [0, 8]}, [0, 1, 2], 4, "InvalidReplicaAssignmentException",
         "Unknown broker(s) in replica assignment: 9, 8."),  # before the count check (recorded)
        ({1: [0, 1]}, [0, 1, 2], 3, "InvalidReplicaAssignmentException",
         "Increasing the number of partitions by 2 but 1 assignments provided."),
        ({}, [0, 1, 2], 2, "InvalidReplicaAssignmentException",
         "Increasing the number of partitions by 1 but 0 assignments provided."),
        ({1: []}, [0, 1], None, "InvalidReplicaAssignmentException",
         "Cannot have replication factor of 0 for partition id 1."),
        ({1: [1, 1]}, [0, 1], None, "InvalidReplicaAssignmentException",
         "Duplicate brokers not allowed in replica assignment: 1, 1 for partition id 1."),
        ({1: [0, 1, 2], 2: [1]}, [0, 1, 2, 3], None, "InvalidReplicaAssignmentException",
         "Inconsistent replication factor between partitions, partition 0 has 2 while partitions [1, 2] have "
         "replication factors [3, 1], respectively."),  # recorded
        ({1: [0, 1]}, [0, 1], 1, "InvalidPartitionsException", "Topic already has 1 partitions."),
    ],
)  # fmt: skip
def test_expansion_assignment_broker_path(
    new: dict[int, list[int]], brokers: list[int], target: int | None, exception: str, message: str
) -> None:
    with pytest.raises(KafkaRuleError) as caught:
        validate_expansion_assignment("t", EXISTING, new, brokers, target_partitions=target)
    assert_kafka_error(caught, exception, message)


def test_expansion_broker_path_accepts_valid_lists() -> None:
    validate_expansion_assignment("t", EXISTING, {1: [1, 2], 2: [2, 0]}, [2, 0, 1], target_partitions=3)


def test_expansion_checks_partitions_in_scala_map_order() -> None:
    # Recorded: with 8 new partitions the Scala HashMap visits partition 7 (empty) before
    # partition 3 (duplicate), so Kafka reports the empty list.
    new = {1: [0, 1], 2: [1, 2], 3: [2, 2], 4: [3, 4], 5: [4, 5], 6: [5, 0], 7: [], 8: [1, 3]}
    with pytest.raises(KafkaRuleError) as caught:
        validate_expansion_assignment("t", EXISTING, new, range(6), target_partitions=9)
    assert_kafka_error(
        caught, "InvalidReplicaAssignmentException", "Cannot have replication factor of 0 for partition id 7."
    )


def test_expansion_broker_path_rekeys_lists_after_existing() -> None:
    with pytest.raises(KafkaRuleError, match="for partition id 1"):
        validate_expansion_assignment("t", EXISTING, {40: [1, 1]}, [0, 1])


def test_expansion_missing_partition_0_after_broker_checks() -> None:
    with pytest.raises(KafkaRuleError) as caught:
        validate_expansion_assignment("t", {1: [0, 1]}, {2: [0, 1]}, [0, 1])
    assert_kafka_error(
        caught,
        "AdminOperationException",
        "Unexpected existing replica assignment for topic 't', partition id 0 is missing. "
        "Assignment: Map(1 -> ReplicaAssignment(replicas=0,1, addingReplicas=, removingReplicas=))",
    )


@pytest.mark.parametrize(
    ("brokers", "available"),
    [([0, 1, 2, 3], "0, 1, 2, 3"), ([0, 1, 2, 13, 14, 5], "0, 5, 14, 1, 13, 2")],  # recorded
)
def test_zookeeper_path_reports_unavailable_brokers_in_scala_set_order(
    brokers: list[int],
    available: str,
) -> None:
    with pytest.raises(KafkaRuleError) as caught:
        validate_zookeeper_path({1: [0, 9]}, brokers, 2)
    assert_kafka_error(
        caught,
        "BrokerNotAvailableException",
        f"Some brokers specified for partition id 1 are not available. Specified brokers: 0, 9, "
        f"available brokers: {available}.",
    )


def test_zookeeper_path_does_not_compare_list_count_with_target() -> None:
    # kafka-topics --zookeeper --alter --partitions 5 with one new list writes 2 partitions (recorded).
    validate_zookeeper_path({1: [0, 1]}, [0, 1, 2, 3], 5)


def test_zookeeper_path_still_requires_an_increase() -> None:
    with pytest.raises(KafkaRuleError) as caught:
        validate_zookeeper_path({1: [0, 1]}, [0, 1], 1)
    assert_kafka_error(
        caught,
        "InvalidPartitionsException",
        "The number of partitions for a topic can only be increased. Topic t currently has 1 partitions, "
        "1 would not be an increase.",
    )
