"""Kafka's replica assignment algorithm (``AdminUtils.assignReplicasToBrokers``), pure and exact.

The rack-unaware path is unchanged since Kafka 0.8.0 and the rack-aware path since 0.10.0
(KAFKA-1215); 3.6 moved the code from Scala to ``server-common/.../admin/AdminUtils.java`` without
changing behaviour. Only the exceptions and messages changed; this module raises the 1.0+ ones.
Integer arithmetic follows Java ``int`` semantics (wrap-around, truncating ``%``) so that even
extreme start indexes give Kafka's result. The outputs were checked against the Kafka 3.9.1 jars,
including scripted values for the two random draws.

Also here: how Kafka picks the brokers it feeds in (``AdminZkClient.getBrokerMetadatas``) and the
automatic path of adding partitions (``AdminZkClient.createNewPartitionsAssignment``, 1.1+).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from core.errors import KafkaRuleError, UsageError
from core.kafka.java import INT_MAX, INT_MIN, java_rem, java_string_sort_key, scala_int_set_order, to_int32

PARTIAL_RACKS_ENFORCED = (
    "Not all brokers have rack information. Add --disable-rack-aware in command line"
    " to make replica assignment without rack information."
)
PARTIAL_RACKS_ASSIGNMENT = "Not all brokers have rack information for replica rack aware assignment."


@dataclass(frozen=True, slots=True)
class BrokerMeta:
    """A broker as the assignment sees it (``org.apache.kafka.admin.BrokerMetadata``).

    ``rack`` is None when the broker registered no rack; an empty string is a rack like any other.
    """

    id: int
    rack: str | None = None


@dataclass(frozen=True, slots=True)
class AssignmentStart:
    """Where Kafka's loop started: what makes an assignment reproducible.

    ``start_index`` places the first leader, ``replica_shift`` is the initial follower shift and
    ``start_partition`` the first partition id. ``random`` is True when the first two were Kafka's two
    random draws; with a fixed start index both equal it.
    """

    start_index: int
    replica_shift: int
    start_partition: int
    random: bool

    def to_json(self) -> dict[str, int | bool]:
        """``{"start_index", "replica_shift", "start_partition", "random"}``."""
        return {
            "start_index": self.start_index,
            "replica_shift": self.replica_shift,
            "start_partition": self.start_partition,
            "random": self.random,
        }

    def describe(self) -> str:
        """``random start: start index 2, replica shift 0, start partition 0`` (or ``fixed start: ...``)."""
        kind = "random start" if self.random else "fixed start"
        return (
            f"{kind}: start index {self.start_index}, replica shift {self.replica_shift}, "
            f"start partition {self.start_partition}"
        )


def check_java_int(what: str, value: int) -> int:
    """``value`` if it fits a Java ``int`` (Kafka holds every count, index and broker id in one).

    Raises:
        UsageError: it does not; the message names ``what`` and the range.
    """
    if not INT_MIN <= value <= INT_MAX:
        raise UsageError(f"{what} must be a Java int ({INT_MIN} to {INT_MAX}), got {value}")
    return value


def _replica_index(first_replica_index: int, shift_sum: int, n_brokers: int) -> int:
    """``AdminUtils.replicaIndex`` given ``shift_sum``, the ``int`` sum ``secondReplicaShift + replicaIndex``.

    Java wraps that sum; the rest is ``long`` arithmetic, with ``%`` keeping the dividend's sign.
    """
    shift = 1 + java_rem(shift_sum, n_brokers - 1)
    return java_rem(first_replica_index + shift, n_brokers)


def _at(items: Sequence[int], index: int) -> int:
    """``array[index]`` with Java's bounds check (Python would silently wrap a negative index)."""
    if index < 0:
        raise IndexError(f"Index {index} out of bounds for length {len(items)}")
    return items[index]


def _starts(n: int, fixed_start_index: int, rng: random.Random | None) -> tuple[int, int]:
    """``(startIndex, nextReplicaShift)``: both ``fixedStartIndex``, or two independent draws.

    Kafka draws ``startIndex`` first and the shift second, each uniform in ``[0, n)``.
    """
    if fixed_start_index >= 0:
        return fixed_start_index, fixed_start_index
    draw = rng if rng is not None else random.Random()
    start_index = draw.randrange(n)
    return start_index, draw.randrange(n)


def rack_alternated_broker_list(brokers: Iterable[BrokerMeta]) -> list[int]:
    """``AdminUtils.getRackAlternatedBrokerList``: broker ids interleaved rack by rack.

    Ids are sorted numerically within each rack, racks in Java ``String`` order (UTF-16 code
    units, case-sensitive), then taken round-robin; an exhausted rack is skipped but still
    advances the rack index. Example: 0→rack1, 1→rack3, 2→rack3, 3→rack2, 4→rack2, 5→rack1
    gives ``[0, 3, 1, 5, 4, 2]``.

    Raises:
        ValueError: a broker has no rack (Kafka only calls this when all have one).
    """
    rack_of: dict[int, str] = {}
    for broker in brokers:
        if broker.rack is None:
            raise ValueError(f"broker {broker.id} has no rack")
        rack_of[broker.id] = broker.rack  # a HashMap: a repeated id keeps its last rack
    by_rack: dict[str, list[int]] = {}
    for broker_id, rack in rack_of.items():
        by_rack.setdefault(rack, []).append(broker_id)
    racks = sorted(by_rack, key=java_string_sort_key)
    queues = [sorted(by_rack[rack]) for rack in racks]
    positions = [0] * len(racks)
    result: list[int] = []
    rack_index = 0
    while len(result) < len(rack_of):
        if positions[rack_index] < len(queues[rack_index]):
            result.append(queues[rack_index][positions[rack_index]])
            positions[rack_index] += 1
        rack_index = (rack_index + 1) % len(racks)
    return result


def _assign_rack_unaware(
    broker_ids: list[int], n_partitions: int, rf: int, start_index: int, shift: int, first_partition: int
) -> dict[int, list[int]]:
    n = len(broker_ids)
    assignment: dict[int, list[int]] = {}
    partition = first_partition
    for _ in range(n_partitions):
        if partition > 0 and partition % n == 0:
            shift = to_int32(shift + 1)
        first = java_rem(to_int32(partition + start_index), n)
        replicas = [_at(broker_ids, first)]
        replicas += [_at(broker_ids, _replica_index(first, to_int32(shift + j), n)) for j in range(rf - 1)]
        assignment[partition] = replicas
        partition = to_int32(partition + 1)
    return assignment


def _pick_followers(
    arranged: list[int], rack_of: dict[int, str], num_racks: int, first: int, shift: int, rf: int
) -> list[int]:
    """One partition's replicas on the rack-aware path.

    A candidate is taken if its rack has no replica yet (or every rack has one) and it has no
    replica yet (or every broker has one). Kafka's probe counter ``k`` runs across all followers
    of the partition; ``probe`` here is the Java ``int`` ``shift * numRacks + k``.
    """
    n = len(arranged)
    leader = _at(arranged, first)
    replicas = [leader]
    racks_used = {rack_of[leader]}
    brokers_used = {leader}
    probe = to_int32(shift * num_racks)
    refused_while_negative = 0
    for _ in range(rf - 1):
        while True:
            broker = _at(arranged, _replica_index(first, probe, n))
            rack = rack_of[broker]
            accepted = (rack not in racks_used or len(racks_used) == num_racks) and (
                broker not in brokers_used or len(brokers_used) == n
            )
            was_negative = probe < 0
            probe = to_int32(probe + 1)
            if accepted:
                replicas.append(broker)
                racks_used.add(rack)
                brokers_used.add(broker)
                refused_while_negative = 0
                break
            refused_while_negative = refused_while_negative + 1 if was_negative else 0
            if refused_while_negative >= n - 1 and probe < 0:
                # Only after an int overflow (absurd start indexes): a negative sum reaches fewer
                # positions, and a whole refused cycle repeats until the sum wraps to 0, which takes
                # Kafka up to 2**31 probes. Jump there; the result is the one Kafka ends up with.
                probe = 0
                refused_while_negative = 0
    return replicas


def _assign_rack_aware(
    brokers: Sequence[BrokerMeta],
    arranged: list[int],
    n_partitions: int,
    rf: int,
    start_index: int,
    shift: int,
    first_partition: int,
) -> dict[int, list[int]]:
    rack_of = {b.id: b.rack for b in brokers if b.rack is not None}
    num_racks = len(set(rack_of.values()))
    n = len(arranged)
    assignment: dict[int, list[int]] = {}
    partition = first_partition
    for _ in range(n_partitions):
        if partition > 0 and partition % n == 0:
            shift = to_int32(shift + 1)
        first = java_rem(to_int32(partition + start_index), n)
        assignment[partition] = _pick_followers(arranged, rack_of, num_racks, first, shift, rf)
        partition = to_int32(partition + 1)
    return assignment


def assign_replicas_to_brokers(
    brokers: Sequence[BrokerMeta],
    n_partitions: int,
    replication_factor: int,
    fixed_start_index: int = -1,
    start_partition_id: int = -1,
    rng: random.Random | None = None,
) -> dict[int, list[int]]:
    """``AdminUtils.assignReplicasToBrokers`` (Kafka 0.10.0 to 3.9 maths, 1.0+ messages).

    Args:
        brokers: used in the order given on the rack-unaware path (Kafka's callers sort by id,
            see :func:`broker_metadatas`); the rack-aware path does not depend on the order.
        n_partitions: number of partitions to assign.
        replication_factor: replicas per partition; the first one is the preferred leader.
        fixed_start_index: when ``>= 0`` it is both the start index and the initial follower
            shift (not reduced modulo the broker count); otherwise both are drawn from ``rng``.
        start_partition_id: id of the first partition produced (``max(0, ·)``); the shift is
            bumped each time the loop reaches a multiple of the broker count.
        rng: source of the two independent draws (start index first, then shift); a fresh
            ``random.Random()`` by default. Seed it for reproducible previews.

    Returns:
        ``{partition: [leader, follower, ...]}`` in ascending partition order.

    Raises:
        KafkaRuleError: Kafka's checks, in Kafka's order: ``InvalidPartitionsException``,
            ``InvalidReplicationFactorException`` (twice), then ``AdminOperationException`` when
            some but not all brokers have a rack.
        UsageError: an argument or a broker id is outside Java's ``int`` range.
    """
    assignment, _ = assign_replicas_with_start(
        brokers, n_partitions, replication_factor, fixed_start_index, start_partition_id, rng
    )
    return assignment


def assign_replicas_with_start(
    brokers: Sequence[BrokerMeta],
    n_partitions: int,
    replication_factor: int,
    fixed_start_index: int = -1,
    start_partition_id: int = -1,
    rng: random.Random | None = None,
) -> tuple[dict[int, list[int]], AssignmentStart]:
    """:func:`assign_replicas_to_brokers`, also returning the start it used (the random draws included).

    Raises:
        KafkaRuleError, UsageError: as :func:`assign_replicas_to_brokers`.
    """
    for what, value in (
        ("the number of partitions", n_partitions),
        ("the replication factor", replication_factor),
        ("the start index", fixed_start_index),
        ("the start partition", start_partition_id),
        *(("a broker id", b.id) for b in brokers),
    ):
        check_java_int(what, value)
    if n_partitions <= 0:
        raise KafkaRuleError("Number of partitions must be larger than 0.", "InvalidPartitionsException")
    if replication_factor <= 0:
        raise KafkaRuleError("Replication factor must be larger than 0.", "InvalidReplicationFactorException")
    if replication_factor > len(brokers):
        raise KafkaRuleError(
            f"Replication factor: {replication_factor} larger than available brokers: {len(brokers)}.",
            "InvalidReplicationFactorException",
        )
    first_partition = max(0, start_partition_id)
    if all(b.rack is None for b in brokers):
        broker_ids = [b.id for b in brokers]
        start_index, shift = _starts(len(broker_ids), fixed_start_index, rng)
        assignment = _assign_rack_unaware(
            broker_ids, n_partitions, replication_factor, start_index, shift, first_partition
        )
    elif any(b.rack is None for b in brokers):
        raise KafkaRuleError(PARTIAL_RACKS_ASSIGNMENT, "AdminOperationException")
    else:
        arranged = rack_alternated_broker_list(brokers)
        start_index, shift = _starts(len(arranged), fixed_start_index, rng)
        assignment = _assign_rack_aware(
            brokers, arranged, n_partitions, replication_factor, start_index, shift, first_partition
        )
    return assignment, AssignmentStart(start_index, shift, first_partition, fixed_start_index < 0)


def broker_metadatas(brokers: Iterable[BrokerMeta], rack_aware: bool = True) -> list[BrokerMeta]:
    """``AdminZkClient.getBrokerMetadatas``: the registered brokers as Kafka feeds them to the assignment.

    Args:
        brokers: all registered brokers, in any order.
        rack_aware: ``RackAwareMode.Enforced`` (the default, also used when adding partitions)
            when True; ``Disabled`` (``--disable-rack-aware``: racks dropped) when False.

    Returns:
        The brokers sorted by id.

    Raises:
        KafkaRuleError: ``AdminOperationException`` in Enforced mode when some but not all
            brokers have a rack.
    """
    all_brokers = list(brokers)
    with_rack = sum(1 for b in all_brokers if b.rack is not None)
    if rack_aware and 0 < with_rack < len(all_brokers):
        raise KafkaRuleError(PARTIAL_RACKS_ENFORCED, "AdminOperationException")
    chosen = all_brokers if rack_aware else [BrokerMeta(b.id) for b in all_brokers]
    return sorted(chosen, key=lambda b: b.id)


def expansion_start_index(sorted_brokers: Sequence[BrokerMeta], partition0_first_replica: int) -> int:
    """Start index Kafka 0.10.0+ uses when adding partitions automatically.

    ``max(0, index of the first broker whose id >= partition 0's first replica)`` on the
    id-sorted list. With racks it is then used as an index into the rack-alternated list
    (Kafka's own inconsistency, reproduced on purpose).
    """
    for index, broker in enumerate(sorted_brokers):
        if broker.id >= partition0_first_replica:
            return index
    return 0


def _replica_assignment_str(replicas: Sequence[int]) -> str:
    """``kafka.controller.ReplicaAssignment.toString`` (3.x) for a topic not being reassigned."""
    return f"ReplicaAssignment(replicas={','.join(map(str, replicas))}, addingReplicas=, removingReplicas=)"


def existing_assignment_str(existing: Mapping[int, Sequence[int]]) -> str:
    """Scala ``toString`` of the existing ``Map[Int, ReplicaAssignment]`` in Kafka 3.x messages.

    Up to four partitions print as ``Map(...)`` in the order given (Kafka's is the znode's JSON
    order, so pass the partitions as parsed); five or more as ``HashMap(...)`` in Scala's hash order.
    """
    keys = scala_int_set_order(existing)
    prefix = "HashMap" if len(keys) > 4 else "Map"
    return prefix + "(" + ", ".join(f"{p} -> {_replica_assignment_str(existing[p])}" for p in keys) + ")"


def check_expansion(
    topic: str,
    existing: Mapping[int, Sequence[int]],
    target_partitions: int,
) -> Sequence[int]:
    """The first checks of ``AdminZkClient.createNewPartitionsAssignment`` (1.1+), in order.

    Returns:
        Partition 0's replicas (its size is the replication factor of new partitions).

    Raises:
        KafkaRuleError: ``AdminOperationException`` when partition 0 is missing,
            ``InvalidPartitionsException`` when ``target_partitions`` is not an increase.
    """
    if 0 not in existing:
        raise KafkaRuleError(
            f"Unexpected existing replica assignment for topic '{topic}', partition id 0 is missing. "
            f"Assignment: {existing_assignment_str(existing)}",
            "AdminOperationException",
        )
    if target_partitions - len(existing) <= 0:
        raise KafkaRuleError(
            "The number of partitions for a topic can only be increased. "
            f"Topic {topic} currently has {len(existing)} partitions, "
            f"{target_partitions} would not be an increase.",
            "InvalidPartitionsException",
        )
    return existing[0]


def assign_expansion(
    brokers: Iterable[BrokerMeta],
    existing: Mapping[int, Sequence[int]],
    target_partitions: int,
    *,
    topic: str,
    rack_aware: bool = True,
) -> dict[int, list[int]]:
    """Replicas for the partitions Kafka adds automatically (``--partitions`` without a manual list).

    Follows ``AdminZkClient.createNewPartitionsAssignment`` (1.1+; ``AdminUtils.addPartitions``
    0.10.0-1.0): brokers in Enforced rack mode sorted by id, replication factor from partition 0,
    start index from :func:`expansion_start_index`, start partition = current count. There is no
    randomness: Kafka always passes a fixed start index here.

    Args:
        brokers: all registered brokers.
        existing: current ``{partition: replicas}``.
        target_partitions: the new total number of partitions.
        topic: the topic name (it appears in Kafka's messages).
        rack_aware: False for ``--disable-rack-aware``: racks are dropped (``RackAwareMode.Disabled``),
            so the rack-unaware path runs on the id-sorted brokers. Kafka's own alter always uses
            Enforced; kzc honours the flag because its partial-rack message recommends it.

    Returns:
        Only the new partitions, ``{len(existing) + i: replicas}``.

    Raises:
        KafkaRuleError: partial racks (Enforced), partition 0 missing, no increase, or the
            replication factor exceeding the broker count, with Kafka's messages.
    """
    sorted_brokers = broker_metadatas(brokers, rack_aware=rack_aware)
    partition0 = check_expansion(topic, existing, target_partitions)
    if not partition0:
        # Scala's `existingAssignmentPartition0.head` on an empty list.
        raise KafkaRuleError("head of empty list", "NoSuchElementException")
    start_index = expansion_start_index(sorted_brokers, partition0[0])
    return assign_replicas_to_brokers(
        sorted_brokers, target_partitions - len(existing), len(partition0), start_index, len(existing)
    )
