"""Manual replica assignments: ``--replica-assignment`` parsing and Kafka's checks of the result.

Parsing is ``TopicCommand.parseReplicaAssignment`` (the same from 0.8.1 to 3.9; the Java rewrite in
3.7 only changed how a list is printed), built on Java's ``split``/``trim``/``parseInt``. Validation
follows ``AdminZkClient.validateTopicCreate`` (create) and the broker's CreatePartitions handling
plus ``AdminZkClient.createNewPartitionsAssignment`` (add partitions), in Kafka 3.9's order and words.
Every message and its collection ordering was checked against the Kafka 3.9.1 jars.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from core.errors import KafkaRuleError
from core.kafka.assignment import check_expansion
from core.kafka.java import (
    JavaNumberFormatError,
    java_hash_set_order,
    java_list_str,
    java_parse_int,
    java_split,
    java_trim,
    scala_int_set_order,
    scala_mutable_hash_map_order,
    to_int32,
)

_INVALID_ASSIGNMENT = "InvalidReplicaAssignmentException"
_INVALID_PARTITIONS = "InvalidPartitionsException"


def _parse_broker_id(token: str) -> int:
    try:
        return java_parse_int(java_trim(token))
    except JavaNumberFormatError as exc:
        raise KafkaRuleError(str(exc), "NumberFormatException") from exc


def _duplicates(broker_ids: Sequence[int]) -> list[int]:
    """``ToolsUtils.duplicates``: each repeated id once, in ``HashSet<Integer>`` order."""
    seen: set[int] = set()
    repeats: list[int] = []
    for broker_id in broker_ids:
        if broker_id in seen:
            repeats.append(broker_id)
        seen.add(broker_id)
    return java_hash_set_order(repeats)


def parse_replica_assignment(text: str) -> dict[int, list[int]]:
    """``TopicCommand.parseReplicaAssignment``: ``"1:2,3:4"`` becomes ``{0: [1, 2], 1: [3, 4]}``.

    Pieces are checked one after the other: all ids of piece ``i`` are parsed, then its
    duplicates, then its size against piece 0. Java's ``split`` drops trailing empty pieces only
    (``"1:2,"`` is one partition, ``"1:2,,3:4"`` fails on ``""``, ``","`` is no partition at all).

    Raises:
        KafkaRuleError: ``NumberFormatException`` (``For input string: "x"``),
            ``AdminCommandFailedException`` (duplicates) or ``AdminOperationException``
            (``Partition i has different replication factor: [2, 1]``, the 3.7+ form).
    """
    assignment: dict[int, list[int]] = {}
    for index, piece in enumerate(java_split(text, ",")):
        broker_ids = [_parse_broker_id(token) for token in java_split(piece, ":")]
        repeated = _duplicates(broker_ids)
        if repeated:
            raise KafkaRuleError(
                "Partition replica lists may not contain duplicate entries: " + ",".join(map(str, repeated)),
                "AdminCommandFailedException",
            )
        assignment[index] = broker_ids
        if len(broker_ids) != len(assignment[0]):
            raise KafkaRuleError(
                f"Partition {index} has different replication factor: {java_list_str(broker_ids)}",
                "AdminOperationException",
            )
    return assignment


def parse_replica_assignment_option(text: str | None) -> dict[int, list[int]] | None:
    """The ``--replica-assignment`` option as ``TopicCommandOptions`` reads it: absent or ``""`` is None."""
    if not text:
        return None
    return parse_replica_assignment(text)


def parse_expansion_assignment(
    text: str, current_partitions: int, *, topic_command_3_7_order: bool = False
) -> dict[int, list[int]]:
    """``--alter --replica-assignment``: the lists for the *new* partitions only (2.2+ rule).

    The whole string (existing partitions included) is parsed and checked, then the first
    ``current_partitions`` entries are dropped and entry ``current + i`` describes partition
    ``current + i``, as TopicCommand 2.2-3.6 sends them.

    Args:
        text: the option value, listing all partitions.
        current_partitions: the topic's partition count now.
        topic_command_3_7_order: reproduce TopicCommand 3.7+, which collects the remaining
            entries into a ``HashMap`` before sending them, so they reach the broker in hash order
            (adding partitions 15 and 16 sends entry 16 first: it is assigned to partition 15).

    Returns:
        ``{current + i: replicas}`` for the lists the broker will receive, in that order.

    Raises:
        KafkaRuleError: as :func:`parse_replica_assignment`.
    """
    return drop_existing_entries(
        parse_replica_assignment(text), current_partitions, topic_command_3_7_order=topic_command_3_7_order
    )


def drop_existing_entries(
    parsed: Mapping[int, Sequence[int]], current_partitions: int, *, topic_command_3_7_order: bool = False
) -> dict[int, list[int]]:
    """The second half of :func:`parse_expansion_assignment`, for a string TopicCommand already parsed.

    TopicCommand parses ``--replica-assignment`` before it looks at the topic (zk-layout §4.1), so
    callers parse first and drop the entries of existing partitions once the count is known.
    """
    remaining = [index for index in parsed if index >= current_partitions]
    if topic_command_3_7_order:
        remaining = java_hash_set_order(remaining)
    return {current_partitions + i: list(parsed[index]) for i, index in enumerate(remaining)}


def _scala_create_map_str(assignment: Mapping[int, Sequence[int]]) -> str:
    """``toString`` of the ``mutable.HashMap[Int, Seq[Int]]`` the broker builds from CreateTopics.

    In ZK mode 3.x only ``ZkAdminManager.createTopics`` reaches this check with duplicates
    (TopicCommand rejects them first); its values are ``ArrayBuffer`` (``brokerIds.asScala.map``).
    This is the Scala 2.13 build that Kafka ships by default; a Scala 2.12 build prints ``Map(``
    with another order.
    """
    keys = scala_mutable_hash_map_order(list(assignment))
    entries = (f"{key} -> ArrayBuffer({', '.join(map(str, assignment[key]))})" for key in keys)
    return "HashMap(" + ", ".join(entries) + ")"


def validate_create_assignment(assignment: Mapping[int, Sequence[int]]) -> None:
    """Steps 5-7 of ``AdminZkClient.validateTopicCreate`` (3.9) for an explicit assignment.

    Unknown brokers and a replication factor of 0 are *not* rejected on create (Kafka accepts
    both). The 0-based check (2.3+) is Kafka's weak one: the non-negative ids must sum, in
    wrapping ``int`` arithmetic, to ``n(n-1)/2``, so ``{-3, 1, 2}`` passes.

    Raises:
        KafkaRuleError: ``InvalidReplicaAssignmentException`` with Kafka's message.
    """
    if len({len(replicas) for replicas in assignment.values()}) != 1:
        raise KafkaRuleError("All partitions should have the same number of replicas", _INVALID_ASSIGNMENT)
    if any(len(set(replicas)) != len(replicas) for replicas in assignment.values()):
        raise KafkaRuleError(
            "Duplicate replica assignment found: " + _scala_create_map_str(assignment), _INVALID_ASSIGNMENT
        )
    size = len(assignment)
    sequence_sum = to_int32(to_int32(size * (size - 1)) // 2)
    if to_int32(sum(p for p in assignment if p >= 0)) != sequence_sum:
        message = "partitions should be a consecutive 0-based integer sequence"
        raise KafkaRuleError(message, _INVALID_ASSIGNMENT)


def validate_create_partitions_request(
    topic: str, existing: Mapping[int, Sequence[int]], target_partitions: int
) -> None:
    """The broker's first CreatePartitions checks (``ZkAdminManager.createPartitions``, 2.4+ wording).

    They apply to automatic and manual requests alike and run before the assignment checks.
    (The reassignment-in-progress check, which needs ZooKeeper state, is the caller's.)

    Raises:
        KafkaRuleError: ``UnknownTopicOrPartitionException`` or ``InvalidPartitionsException``.
    """
    if not existing:
        raise KafkaRuleError(f"The topic '{topic}' does not exist.", "UnknownTopicOrPartitionException")
    current = len(existing)
    if target_partitions < current:
        higher = f"which is higher than the requested {target_partitions}."
        raise KafkaRuleError(f"Topic currently has {current} partitions, {higher}", _INVALID_PARTITIONS)
    if target_partitions == current:
        raise KafkaRuleError(f"Topic already has {current} partitions.", _INVALID_PARTITIONS)


def _check_known_brokers(lists: Sequence[Sequence[int]], registered: Sequence[int]) -> None:
    """``assignments.flatten.toSet -- allBrokerIds``: the message lists ids in Scala ``Set`` order."""
    distinct = list(dict.fromkeys(broker_id for replicas in lists for broker_id in replicas))
    known = set(registered)
    unknown = [broker_id for broker_id in distinct if broker_id not in known]
    if unknown:
        ordered = scala_int_set_order(unknown, hashed=len(distinct) > 4)
        raise KafkaRuleError(
            f"Unknown broker(s) in replica assignment: {', '.join(map(str, ordered))}.", _INVALID_ASSIGNMENT
        )


def _check_manual_lists(
    manual: Mapping[int, Sequence[int]],
    order: Iterable[int],
    replication_factor: int,
    registered: Sequence[int],
) -> None:
    """``AdminZkClient.validateReplicaAssignment``: per partition in map order, then the sizes."""
    available = set(registered)
    available_str = ", ".join(map(str, scala_int_set_order(registered)))
    for partition in order:
        replicas = manual[partition]
        listed = ", ".join(map(str, replicas))
        if not replicas:
            raise KafkaRuleError(
                f"Cannot have replication factor of 0 for partition id {partition}.", _INVALID_ASSIGNMENT
            )
        if len(set(replicas)) != len(replicas):
            head = "Duplicate brokers not allowed in replica assignment"
            raise KafkaRuleError(f"{head}: {listed} for partition id {partition}.", _INVALID_ASSIGNMENT)
        if not set(replicas) <= available:
            raise KafkaRuleError(
                f"Some brokers specified for partition id {partition} are not available. "
                f"Specified brokers: {listed}, available brokers: {available_str}.",
                "BrokerNotAvailableException",
            )
    bad = sorted((p, len(r)) for p, r in manual.items() if len(r) != replication_factor)
    if bad:
        raise KafkaRuleError(
            "Inconsistent replication factor between partitions, "
            f"partition 0 has {replication_factor} while partitions [{', '.join(str(p) for p, _ in bad)}] "
            f"have replication factors [{', '.join(str(n) for _, n in bad)}], respectively.",
            _INVALID_ASSIGNMENT,
        )


def validate_expansion_assignment(
    topic: str,
    existing: Mapping[int, Sequence[int]],
    new_assignment: Mapping[int, Sequence[int]],
    registered_broker_ids: Iterable[int],
    *,
    target_partitions: int | None = None,
    broker_checks: bool = True,
) -> None:
    """Kafka's checks of manual lists for new partitions, in Kafka 3.9's order and wording.

    With ``broker_checks`` (CreatePartitions on a broker, 1.0+, what every 3.x tool uses):
    :func:`validate_create_partitions_request`, unknown brokers, the number of lists, then the
    ``AdminZkClient`` checks over the lists re-keyed ``current + i`` (in Scala ``Map`` order).
    Without it (``kafka-topics --zookeeper --alter`` up to 2.8): only the ``AdminZkClient`` checks,
    on the keys given, in the order given; the number of lists is then not compared with the
    target (Kafka writes as many partitions as there are lists).

    The Enforced rack check of :func:`core.kafka.assignment.broker_metadatas` runs before all of these
    in Kafka; callers run it first.

    Args:
        topic: topic name (appears in messages).
        existing: current ``{partition: replicas}``, in znode order.
        new_assignment: ``{partition: replicas}`` for new partitions, e.g. from
            :func:`parse_expansion_assignment`; lists are sent in ascending key order.
        registered_broker_ids: ids of all registered brokers.
        target_partitions: the requested total; defaults to current + number of lists.
        broker_checks: see above.

    Raises:
        KafkaRuleError: the first failing check, with Kafka's exception name and message.
    """
    registered = sorted(set(registered_broker_ids))
    target = len(existing) + len(new_assignment) if target_partitions is None else target_partitions
    if broker_checks:
        lists = [new_assignment[key] for key in sorted(new_assignment)]
        validate_create_partitions_request(topic, existing, target)
        _check_known_brokers(lists, registered)
        increment = target - len(existing)
        if len(lists) != increment:
            raise KafkaRuleError(
                f"Increasing the number of partitions by {increment} but {len(lists)} assignments provided.",
                _INVALID_ASSIGNMENT,
            )
        first_new = len(existing)
        manual: Mapping[int, Sequence[int]] = {first_new + i: replicas for i, replicas in enumerate(lists)}
        order = scala_int_set_order(manual)
    else:
        manual = new_assignment
        order = list(new_assignment)
    partition0 = check_expansion(topic, existing, target)
    _check_manual_lists(manual, order, len(partition0), registered)
