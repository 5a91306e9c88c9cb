"""``kzc assign``: Kafka's replica assignment, offline and scriptable; also the expansion of a live topic.

- ``kzc assign --brokers 0,1,2 [--racks 0:r1,1:r2,2:r1] --partitions N --replication-factor R
  [--start-index I] [--start-partition P]`` runs ``AdminUtils.assignReplicasToBrokers`` (brokers in the
  order given, as AdminUtils takes them; a random start unless ``--start-index``);
- ``kzc assign --replica-assignment STR`` parses and validates a manual assignment as TopicCommand and
  ``AdminZkClient.validateTopicCreate`` do;
- ``kzc assign --zookeeper ... --topic T --partitions N [--replica-assignment STR]`` previews adding
  partitions to T on the live cluster (read-only: nothing is written).

``--json`` prints ``{"assignment": {"0": [..], ...}, "metrics": {...}}``; invalid input exits 2 with
``{"error": "<Kafka's message>"}``.
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from cli.options import add_command
from core.brokers.capabilities import VIA_ZOOKEEPER
from core.config import ConnectionSettings
from core.errors import UsageError
from core.kafka import topic_rules
from core.kafka.assignment import BrokerMeta, assign_replicas_with_start, check_java_int
from core.kafka.java import INT_MAX, INT_MIN
from core.kafka.names import validate_topic_name
from core.kafka.znode_size import EMPTY_TOPIC_ZNODE, check_topic_znode_size, entries_size
from core.topics.facts import TopicStateReader
from core.topics.plan import Assignment, ExpandRequest, assignment_json, frozen_assignment
from core.topics.planning import plan_expand
from core.zookeeper.kafka_root import open_kafka_session

_INTEGER = re.compile(r"[+-]?[0-9]+")
MAX_ROWS = 200  # the terminal shows this many partitions; --json always has them all


def register(sub: Any) -> None:
    """Declare ``kzc assign``."""
    parser = add_command(sub, "assign")
    parser.add_argument("--brokers", metavar="ID,ID,...", help="broker ids, in the order Kafka gets them")
    parser.add_argument("--racks", metavar="ID:RACK,...", help="rack of each broker (all or none)")
    parser.add_argument("--partitions", metavar="N", help="partitions to assign (with --topic: the new total)")
    parser.add_argument("--replication-factor", metavar="R", help="replicas per partition")
    parser.add_argument("--start-index", metavar="I", help="fixed start index (default: random, as Kafka)")
    parser.add_argument("--start-partition", metavar="P", help="id of the first partition (default 0)")
    parser.add_argument("--replica-assignment", metavar="STR", help="a manual assignment to check, e.g. 1:2,2:3")
    parser.add_argument("--topic", metavar="T", help="preview adding partitions to T on the live cluster")
    parser.add_argument(
        "--disable-rack-aware",
        action="store_true",
        help="ignore broker racks: rack-unaware assignment, as kafka-topics --disable-rack-aware",
    )
    parser.set_defaults(handler=_assign)


def _assign(args: argparse.Namespace, settings: ConnectionSettings) -> int:
    if args.topic is not None:
        result = _expansion(args, settings)
    elif args.replica_assignment is not None:
        _refuse(args, ("brokers", "racks", "partitions", "replication_factor", "start_index", "start_partition",
                       "disable_rack_aware"), "--replica-assignment")  # fmt: skip
        assignment = frozen_assignment(topic_rules.parse_create_assignment(args.replica_assignment))
        topic_rules.validate_create_assignment(dict(assignment))
        racks: dict[int, str | None] = {}
        result = {"assignment": assignment, "racks": racks, "metrics": topic_rules.metrics_for(assignment, racks)}
    else:
        result = _computed(args, settings.jute_maxbuffer)
    if args.json:
        payload = {k: v for k, v in result.items() if k not in ("assignment", "racks")}
        print(json.dumps({"assignment": assignment_json(result["assignment"]), **payload}))
    else:
        for line in _header(result):
            print(line)
        for line in render_assignment(result["assignment"], tuple(result["racks"].items()), result["metrics"]):
            print(line)
    return 0


def _computed(args: argparse.Namespace, znode_limit: int) -> dict[str, Any]:
    if args.brokers is None or args.partitions is None or args.replication_factor is None:
        raise UsageError(
            "give --brokers, --partitions and --replication-factor (or --replica-assignment, or --topic with "
            "--zookeeper)"
        )
    brokers = parse_broker_list(args.brokers)
    racks = parse_racks(args.racks, brokers) if args.racks else {}
    # --disable-rack-aware drops the racks from the computation (the metrics still show them).
    metas = [BrokerMeta(b, None if args.disable_rack_aware else racks.get(b)) for b in brokers]
    partitions = parse_int_option("--partitions", args.partitions)
    replication = parse_int_option("--replication-factor", args.replication_factor)
    start_index = parse_int_option("--start-index", args.start_index)
    start_partition = parse_int_option("--start-partition", args.start_partition)
    assert partitions is not None and replication is not None
    if 0 < replication <= len(metas) and partitions > 0:
        # A preview of what no ZooKeeper would store is refused as create is, before it is built.
        first = 0 if start_partition is None or start_partition < 0 else start_partition
        size = EMPTY_TOPIC_ZNODE + entries_size(first, first + partitions, replication, brokers)
        check_topic_znode_size(None, size, znode_limit, f"{partitions:,} partitions")
    computed, start = assign_replicas_with_start(
        metas,
        partitions,
        replication,
        fixed_start_index=-1 if start_index is None else start_index,
        start_partition_id=-1 if start_partition is None else start_partition,
    )
    assignment = frozen_assignment(computed)
    all_racks: dict[int, str | None] = {b: racks.get(b) for b in brokers}
    return {
        "assignment": assignment,
        "racks": all_racks,
        "metrics": topic_rules.metrics_for(assignment, all_racks),
        "start_index": start_index,
        "start": start.to_json(),
    }


def _expansion(args: argparse.Namespace, settings: ConnectionSettings) -> dict[str, Any]:
    _refuse(args, ("brokers", "racks", "replication_factor", "start_index", "start_partition"), "--topic")
    if settings.zookeeper is None:
        raise UsageError("--topic previews an expansion on a live cluster: give --zookeeper HOST:PORT[/chroot]")
    partitions = parse_int_option("--partitions", args.partitions)
    if partitions is None:
        raise UsageError("--topic needs --partitions (the new total number of partitions)")
    request = ExpandRequest(
        args.topic, partitions, args.replica_assignment or None, rack_aware=not args.disable_rack_aware
    )
    validate_topic_name(args.topic)  # Kafka's message, before '..' becomes a path
    with open_kafka_session(settings) as session:
        reader = TopicStateReader(session)
        facts = reader.facts()
        plan = plan_expand(
            facts, reader.topic(args.topic), request, via=VIA_ZOOKEEPER, znode_limit=settings.jute_maxbuffer
        )
    return {
        "assignment": plan.new_assignment,
        "racks": dict(plan.racks),
        "metrics": {"before": plan.metrics_before.to_json(), "after": plan.metrics.to_json()},
        "topic": plan.topic,
        "current_partitions": plan.current_partitions,
        "partitions": plan.target_partitions,
    }


def _refuse(args: argparse.Namespace, names: Sequence[str], with_option: str) -> None:
    given = [f"--{n.replace('_', '-')}" for n in names if getattr(args, n) not in (None, False)]
    if given:
        raise UsageError(f"{', '.join(given)} cannot be combined with {with_option}")


def _header(result: Mapping[str, Any]) -> list[str]:
    if "topic" in result:
        return [
            f"Adding partitions to {result['topic']}: {result['current_partitions']} -> {result['partitions']} "
            "(preview, nothing is written)"
        ]
    if "start_index" in result:
        start = result["start_index"]
        if start is not None:
            return [f"Assignment (start index {start})"]
        drawn = result["start"]
        return [
            f"Assignment (random start, as Kafka: start index {drawn['start_index']}, "
            f"replica shift {drawn['replica_shift']}, start partition {drawn['start_partition']})"
        ]
    return ["Manual assignment: valid"]


# ---- parsing ------------------------------------------------------------------------------------------


def parse_int_option(option: str, text: str | None) -> int | None:
    """An integer option given as text (parsed here so a bad value is a one-line error, JSON with --json).

    Kafka holds every count, index and broker id in a Java ``int``, so a value outside its range is
    refused here too, naming the option.

    Raises:
        UsageError: not a decimal integer, or outside Java's ``int`` range.
    """
    if text is None:
        return None
    stripped = text.strip()
    if not _INTEGER.fullmatch(stripped):
        raise UsageError(f"{option} must be an integer, got '{text}'")
    if len(stripped.lstrip("+-").lstrip("0")) > 10:  # far outside an int; also spares int() a huge string
        raise UsageError(f"{option} must be a Java int ({INT_MIN} to {INT_MAX}), got {stripped}")
    return check_java_int(option, int(stripped))


def parse_broker_list(text: str) -> list[int]:
    """``0,1,2`` → ``[0, 1, 2]`` in the order given; an empty list (``--brokers=``, what a cluster with no
    registered broker gives) is ``[]``, which the assignment refuses with Kafka's own AdminUtils message
    ("Replication factor: 1 larger than available brokers: 0.").

    Raises:
        UsageError: an entry is not an integer, or an id repeats.
    """
    if not text.strip():
        return []
    brokers: list[int] = []
    for piece in text.split(","):
        value = parse_int_option("--brokers", piece)
        assert value is not None
        if value in brokers:
            raise UsageError(f"--brokers lists broker {value} twice")
        brokers.append(value)
    return brokers


def parse_racks(text: str, brokers: Sequence[int]) -> dict[int, str]:
    """``0:r1,1:r2`` → ``{0: "r1", 1: "r2"}``.

    Raises:
        UsageError: malformed entries, or a broker that is not in ``--brokers``.
    """
    racks: dict[int, str] = {}
    for piece in text.split(","):
        broker_text, sep, rack = piece.partition(":")
        if not sep or not rack:
            raise UsageError(f"--racks takes ID:RACK entries separated by commas, got '{piece}'")
        broker = parse_int_option("--racks", broker_text)
        assert broker is not None
        if broker not in brokers:
            raise UsageError(f"--racks names broker {broker}, which is not in --brokers")
        racks[broker] = rack
    return racks


# ---- rendering ----------------------------------------------------------------------------------------


def render_assignment(
    assignment: Assignment,
    racks: Sequence[tuple[int, str | None]],
    metrics: Mapping[str, Any],
    indent: str = "",
) -> list[str]:
    """An assignment as terminal lines: one row per partition (racks when known), then the metrics."""
    rack_of = dict(racks)
    with_racks = any(rack_of.get(b) is not None for _, replicas in assignment for b in replicas)
    header = f"{indent}{'partition':>9}  {'replicas':<20}" + ("  racks" if with_racks else "")
    lines = [header.rstrip()]
    for partition, replicas in assignment[:MAX_ROWS]:
        row = f"{indent}{partition:>9}  {'[' + ','.join(map(str, replicas)) + ']':<20}"
        if with_racks:
            row += "  " + ",".join(rack_of.get(b) or "-" for b in replicas)
        lines.append(row.rstrip())
    if len(assignment) > MAX_ROWS:
        lines.append(f"{indent}... {len(assignment) - MAX_ROWS} more partitions (--json shows all)")
    lines += [f"{indent}{line}" for line in topic_rules.describe_metrics(metrics)]
    return lines
