"""Reassignment plans, pure: the plan and its balance, how it is shown, Kafka's ``--generate`` (``--onto``) and
the throttles a plan sets.

A plan is the list of partitions whose replicas change, each with its ``current`` and target replicas,
and the balance before and after. ``reassignment_json`` is Kafka's reassignment file (accepted by
``kafka-reassign-partitions.sh --execute``; the extra ``current`` field is ignored by Kafka's parser).
Minimal-movement ``--move-off`` is ``core.reassign.move_off``; reading a reassignment file,
``core.reassign.file``.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from core.errors import KafkaRuleError, UsageError
from core.kafka.assignment import AssignmentStart, BrokerMeta, assign_replicas_with_start, broker_metadatas
from core.kafka.topic_partition import TopicPartition

"""(topic, partition)."""

MOVE_OFF = "move-off"
ONTO = "onto"


@dataclass(frozen=True, slots=True)
class Move:
    """One partition whose replicas change: ``current`` as ZooKeeper holds them, ``target`` as planned."""

    topic: str
    partition: int
    current: tuple[int, ...]
    target: tuple[int, ...]

    @property
    def key(self) -> TopicPartition:
        """(topic, partition)."""
        return (self.topic, self.partition)

    @property
    def adding(self) -> tuple[int, ...]:
        """Brokers that get a new replica (they copy the log)."""
        return tuple(b for b in self.target if b not in self.current)

    @property
    def removing(self) -> tuple[int, ...]:
        """Brokers whose replica goes away."""
        return tuple(b for b in self.current if b not in self.target)

    def to_json(self) -> dict[str, Any]:
        """One entry of Kafka's reassignment file, plus ``current``."""
        return {
            "topic": self.topic,
            "partition": self.partition,
            "replicas": list(self.target),
            "current": list(self.current),
        }


@dataclass(frozen=True)
class Balance:
    """Replicas and preferred leaders per broker over the plan's partitions (every broker listed)."""

    replicas: Mapping[int, int]
    leaders: Mapping[int, int]

    def skew(self, brokers: Iterable[int]) -> tuple[int, int]:
        """(replica spread, leader spread): max minus min over ``brokers``."""
        ids = list(brokers)
        if not ids:
            return (0, 0)
        replicas = [self.replicas.get(b, 0) for b in ids]
        leaders = [self.leaders.get(b, 0) for b in ids]
        return (max(replicas) - min(replicas), max(leaders) - min(leaders))

    def to_json(self, brokers: Iterable[int]) -> dict[str, Any]:
        """``{"replicas_per_broker", "leaders_per_broker", "replica_skew", "leader_skew"}``."""
        replica_skew, leader_skew = self.skew(brokers)
        return {
            "replicas_per_broker": {str(b): n for b, n in sorted(self.replicas.items())},
            "leaders_per_broker": {str(b): n for b, n in sorted(self.leaders.items())},
            "replica_skew": replica_skew,
            "leader_skew": leader_skew,
        }


def balance_of(assignment: Mapping[TopicPartition, Sequence[int]], brokers: Iterable[int]) -> Balance:
    """Replicas and preferred leaders per broker; ``brokers`` are listed even when they hold nothing."""
    replicas = dict.fromkeys(brokers, 0)
    leaders = dict(replicas)
    for current in assignment.values():
        for broker in current:
            replicas[broker] = replicas.get(broker, 0) + 1
        if current:
            leaders[current[0]] = leaders.get(current[0], 0) + 1
    return Balance(replicas, leaders)


@dataclass(frozen=True)
class ReassignPlan:
    """What a reassignment changes; nothing is written to make it.

    ``brokers`` are the ``--move-off`` or ``--onto`` ids; ``targets`` the brokers the plan balances over;
    ``starts`` Kafka's start per topic (``--onto``); ``bytes_to_move`` is None when kzc cannot learn the
    replicas' log sizes (``bytes_unknown`` says why).
    """

    mode: str
    brokers: tuple[int, ...]
    targets: tuple[int, ...]
    moves: tuple[Move, ...]
    before: Balance
    after: Balance
    partitions_considered: int
    starts: tuple[tuple[str, AssignmentStart], ...] = ()
    seed: int | None = None
    warnings: tuple[str, ...] = ()
    bytes_to_move: int | None = None
    bytes_unknown: str = "log sizes were not read"
    topic_versions: tuple[tuple[str, int], ...] = field(default=())
    balanced_over: tuple[int, ...] | None = None  # brokers the skew is measured over (``with_balance``)

    @property
    def replicas_moved(self) -> int:
        """New replicas the brokers must copy."""
        return sum(len(m.adding) for m in self.moves)

    @property
    def leaders_moved(self) -> int:
        """Partitions whose preferred leader changes."""
        return sum(1 for m in self.moves if m.current[:1] != m.target[:1])

    def metrics(self) -> dict[str, Any]:
        """Before/after balance over every broker involved, and what moves."""
        if self.balanced_over is not None:
            before_over: Iterable[int] = self.balanced_over
            after_over: Iterable[int] = self.balanced_over
        else:
            before_over = sorted(set(self.before.replicas) | set(self.after.replicas))
            before_over = before_over if self.mode == ONTO else self.targets
            after_over = self.targets
        return {
            "before": self.before.to_json(before_over),
            "after": self.after.to_json(after_over),
            "partitions_considered": self.partitions_considered,
            "partitions_moved": len(self.moves),
            "replicas_moved": self.replicas_moved,
            "preferred_leaders_moved": self.leaders_moved,
            "bytes_to_move": self.bytes_to_move,
            **({"bytes_to_move_unknown": self.bytes_unknown} if self.bytes_to_move is None else {}),
        }

    def to_json(self) -> dict[str, Any]:
        """Kafka's reassignment JSON (version, partitions with ``current``) plus kzc's ``plan`` summary."""
        plan: dict[str, Any] = {"mode": self.mode, "brokers": list(self.brokers), "targets": list(self.targets)}
        if self.starts:
            plan["starts"] = {t: s.to_json() for t, s in self.starts}
        if self.seed is not None:
            plan["seed"] = self.seed
        plan["metrics"] = self.metrics()
        plan["warnings"] = list(self.warnings)
        return {**reassignment_json(self.moves), "kzc": plan}


def with_balance(
    plan: ReassignPlan, assignment: Mapping[TopicPartition, Sequence[int]], registered: Iterable[int]
) -> ReassignPlan:
    """The plan with the one balance every command shows for it (``reassign plan`` and ``reassign apply``
    of its file print the same numbers): replicas and preferred leaders per broker over the partitions of the
    topics the plan moves, before and after, and the skew over the registered brokers the plan does not
    empty (a broker that holds replicas there before and none after, e.g. ``--move-off``'s)."""
    touched = {m.topic for m in plan.moves}
    scope = {k: tuple(v) for k, v in assignment.items() if k[0] in touched}
    final = dict(scope)
    for move in plan.moves:
        final[move.key] = move.target
    brokers = sorted(set(registered))
    before, after = balance_of(scope, brokers), balance_of(final, brokers)
    emptied = {b for b, n in before.replicas.items() if n and not after.replicas.get(b)}
    over = tuple(b for b in brokers if b not in emptied)
    return replace(plan, before=before, after=after, balanced_over=over)


def describe_plan(plan: ReassignPlan, shown: int = 40) -> list[str]:
    """The plan as lines (CLI and console): what moves (first ``shown``), balance before and after, bytes,
    Kafka's starts (``--onto``), warnings."""
    if plan.mode == ONTO:
        head = f"Reassign onto brokers {_csv(plan.brokers)} (Kafka's --generate)"
        head += f", seed {plan.seed}" if plan.seed is not None else ""
    elif plan.mode == MOVE_OFF:
        head = f"Move every replica off broker(s) {_csv(plan.brokers)} (minimal movement)"
    else:
        head = "Reassignment from file"
    metrics = plan.metrics()
    lines = [
        f"{head}: {metrics['partitions_moved']} of {plan.partitions_considered} partitions change, "
        f"{metrics['replicas_moved']} replicas to copy, {metrics['preferred_leaders_moved']} preferred leaders move",
    ]
    lines += [f"  {m.topic}-{m.partition}: {_csv(m.current)} -> {_csv(m.target)}" for m in plan.moves[:shown]]
    if len(plan.moves) > shown:
        lines.append(f"  ... {len(plan.moves) - shown} more (--json or -o FILE for all)")
    for when in ("before", "after"):
        data = metrics[when]
        replicas = " ".join(f"{b}:{n}" for b, n in data["replicas_per_broker"].items())
        leaders = " ".join(f"{b}:{n}" for b, n in data["leaders_per_broker"].items())
        lines.append(
            f"  {when}: replicas per broker {replicas}; leaders {leaders}"
            f" (skew {data['replica_skew']} / {data['leader_skew']})"
        )
    if not plan.moves:
        lines.append("  bytes to move: 0 (nothing moves)")
    elif metrics["bytes_to_move"] is None:
        lines.append(f"  bytes to move: unknown ({metrics['bytes_to_move_unknown']})")
    else:
        lines.append(f"  bytes to move: {metrics['bytes_to_move']:,} (log sizes from the brokers, DescribeLogDirs)")
    lines += [f"  {topic}: {start.describe()}" for topic, start in plan.starts[:5]]
    lines += [f"  WARNING: {w}" for w in plan.warnings]
    return lines


def move_grid(plan: ReassignPlan, rows: int = 30) -> list[str]:
    """Partitions x brokers before -> after, one row per moving partition (first ``rows``): ``L`` leads and
    stays, ``R`` replica that stays, ``+`` new replica (``+L`` new and preferred leader), ``-`` removed,
    ``L>`` a staying replica that becomes preferred leader."""
    brokers = sorted({b for m in plan.moves for b in (*m.current, *m.target)})
    width = max([len(f"{m.topic}-{m.partition}") for m in plan.moves[:rows]] + [9])
    lines = [" " * width + "".join(f"{b:>5}" for b in brokers)]
    for move in plan.moves[:rows]:
        cells = []
        for broker in brokers:
            now, then = broker in move.current, broker in move.target
            leads_now, leads_then = move.current[:1] == (broker,), move.target[:1] == (broker,)
            if now and then:
                cell = "L" if leads_then and leads_now else "L>" if leads_then else "R"
            elif then:
                cell = "+L" if leads_then else "+"
            elif now:
                cell = "-"
            else:
                cell = "."
            cells.append(f"{cell:>5}")
        lines.append(f"{move.topic}-{move.partition}".ljust(width) + "".join(cells))
    if len(plan.moves) > rows:
        lines.append(f"... {len(plan.moves) - rows} more partitions")
    return lines


def _csv(ids: Iterable[int]) -> str:
    return ",".join(map(str, ids))


def reassignment_json(moves: Sequence[Move]) -> dict[str, Any]:
    """``{"version":1,"partitions":[{"topic","partition","replicas","current"}]}``."""
    return {"version": 1, "partitions": [m.to_json() for m in moves]}


# ---- --onto: Kafka's --generate ---------------------------------------------------------------------


def plan_onto(
    assignment: Mapping[TopicPartition, Sequence[int]],
    brokers: Sequence[BrokerMeta],
    onto: Sequence[int],
    rack_aware: bool = True,
    seed: int | None = None,
) -> ReassignPlan:
    """``kafka-reassign-partitions.sh --generate``: Kafka's assignment of each topic over ``onto``.

    As ``ReassignPartitionsCommand.generateAssignment``: the brokers are the registered ones of the list,
    sorted by id (``getBrokerMetadatas``, Enforced rack mode unless ``rack_aware`` is False); each topic is
    assigned afresh with its partition count and the replication factor of its first partition, from
    Kafka's random start (drawn from ``random.Random(seed)`` topic after topic, in name order).

    Raises:
        UsageError: duplicate or unregistered broker ids in ``onto`` (Kafka drops unregistered ones
            silently; kzc refuses).
        KafkaRuleError: Kafka's assignment checks (replication factor larger than the brokers...).
    """
    duplicates = sorted({b for b in onto if list(onto).count(b) > 1})
    if duplicates:
        raise KafkaRuleError(
            f"Broker list contains duplicate entries: {','.join(map(str, duplicates))}", "AdminCommandFailedException"
        )
    registered = {b.id: b for b in brokers}
    unknown = sorted(b for b in onto if b not in registered)
    if unknown:
        raise UsageError(
            f"Unknown broker id(s) in --onto: {ids_text(unknown)} (registered: {ids_text(sorted(registered))}); "
            "Kafka's --generate would silently leave them out, kzc refuses"
        )
    metas = broker_metadatas([registered[b] for b in onto], rack_aware)
    rng = random.Random(seed)
    by_topic: dict[str, list[int]] = {}
    for topic, partition in assignment:
        by_topic.setdefault(topic, []).append(partition)
    final: dict[TopicPartition, tuple[int, ...]] = {}
    starts = []
    for topic in sorted(by_topic):
        partitions = sorted(by_topic[topic])
        rf = len(assignment[(topic, partitions[0])])
        proposed, start = assign_replicas_with_start(metas, len(partitions), rf, rng=rng)
        starts.append((topic, start))
        for partition in partitions:
            # Kafka numbers the proposed partitions 0..n-1; a topic's partitions are 0..n-1 too.
            final[(topic, partition)] = tuple(proposed.get(partition, assignment[(topic, partition)]))
    targets = tuple(m.id for m in metas)
    moves = tuple(
        Move(t, p, tuple(assignment[(t, p)]), final[(t, p)])
        for t, p in sorted(final)
        if final[(t, p)] != tuple(assignment[(t, p)])
    )
    every = sorted({b for r in assignment.values() for b in r} | set(targets))
    return ReassignPlan(
        mode=ONTO,
        brokers=tuple(onto),
        targets=targets,
        moves=moves,
        before=balance_of(assignment, every),
        after=balance_of(final, targets),
        partitions_considered=len(assignment),
        starts=tuple(starts),
        seed=seed,
    )


# ---- throttles (kafka-reassign-partitions.sh --throttle) --------------------------------------------

LEADER_THROTTLED_REPLICAS = "leader.replication.throttled.replicas"
FOLLOWER_THROTTLED_REPLICAS = "follower.replication.throttled.replicas"
LEADER_THROTTLED_RATE = "leader.replication.throttled.rate"
FOLLOWER_THROTTLED_RATE = "follower.replication.throttled.rate"
LOG_DIR_THROTTLED_RATE = "replica.alter.log.dirs.io.max.bytes.per.second"
TOPIC_THROTTLES = (LEADER_THROTTLED_REPLICAS, FOLLOWER_THROTTLED_REPLICAS)
BROKER_THROTTLES = (LEADER_THROTTLED_RATE, FOLLOWER_THROTTLED_RATE, LOG_DIR_THROTTLED_RATE)


def topic_throttles(moves: Sequence[Move]) -> dict[str, dict[str, str]]:
    """``calculateLeaderThrottles`` / ``calculateFollowerThrottles``: per topic, the sources
    (``partition:broker`` for every current replica) and the destinations not among the sources, each a
    sorted set of strings joined by commas (Scala's ``TreeSet[String]`` order)."""
    leader: dict[str, set[str]] = {}
    follower: dict[str, set[str]] = {}
    for move in moves:
        sources = set(move.current)
        leader.setdefault(move.topic, set()).update(f"{move.partition}:{b}" for b in sources)
        follower.setdefault(move.topic, set()).update(f"{move.partition}:{b}" for b in move.target if b not in sources)
    return {
        topic: {
            LEADER_THROTTLED_REPLICAS: ",".join(sorted(leader[topic])),
            FOLLOWER_THROTTLED_REPLICAS: ",".join(sorted(follower.get(topic, set()))),
        }
        for topic in sorted(leader)
    }


def reassigning_brokers(moves: Sequence[Move]) -> tuple[int, ...]:
    """``calculateReassigningBrokers``: every source and destination broker, ascending."""
    return tuple(sorted({b for m in moves for b in (*m.current, *m.target)}))


def ids_text(ids: Iterable[int]) -> str:
    """``1, 2, 3``: broker ids in a message."""
    return ", ".join(map(str, ids))
