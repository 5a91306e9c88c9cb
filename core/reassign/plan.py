"""Reassignment plans, pure: minimal-movement ``--move-off`` and Kafka's ``--generate`` (``--onto``).

A plan is the list of partitions whose replicas change, each with its ``current`` and target replicas,
and the balance before and after. ``reassignment_json`` is Kafka's reassignment file (accepted by
``kafka-reassign-partitions.sh --execute``; the extra ``current`` field is ignored by Kafka's parser).

``--move-off`` moves only the replicas on the brokers being emptied; every other replica stays on its
broker and in its position. A new home is the eligible broker with the fewest replicas (then the lowest
id), eligible meaning not already holding the partition and, when the partition's replicas were on
distinct racks, on a rack the partition does not use yet. A repair pass then moves new replicas from the
fullest to the emptiest brokers while that narrows the spread. When a preferred leader moves, the leader
position goes to the staying replica that leads the fewest partitions (it already has the data), and the
new replica takes that replica's place in the list.
"""

from __future__ import annotations

import heapq
import json
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from core.errors import GuardError, KafkaRuleError, UsageError
from core.kafka.assignment import AssignmentStart, BrokerMeta, assign_replicas_with_start, broker_metadatas

Key = tuple[str, int]
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
    def key(self) -> Key:
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


def balance_of(assignment: Mapping[Key, Sequence[int]], brokers: Iterable[int]) -> Balance:
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
    plan: ReassignPlan, assignment: Mapping[Key, Sequence[int]], registered: Iterable[int]
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


# ---- --move-off: minimal movement -------------------------------------------------------------------


def plan_move_off(
    assignment: Mapping[Key, Sequence[int]], brokers: Sequence[BrokerMeta], move_off: Iterable[int]
) -> ReassignPlan:
    """Move every replica off ``move_off`` and nothing else (see the module docstring for the rules).

    Args:
        assignment: the current replicas of every partition in scope.
        brokers: the registered brokers with their racks (the only possible new homes).
        move_off: the brokers to empty.

    Raises:
        UsageError: no broker to move off, or a partition has more replicas than brokers to hold them.
    """
    leaving = frozenset(move_off)
    if not leaving:
        raise UsageError("--move-off needs at least one broker id")
    racks = {b.id: b.rack for b in brokers}
    targets = sorted(b for b in racks if b not in leaving)
    warnings = []
    unknown = sorted(b for b in leaving if b not in racks)
    if unknown:
        warnings.append(f"broker(s) {_ids(unknown)} are not registered; their replicas move all the same")
    before = balance_of(assignment, targets)
    new = _place(assignment, leaving, targets, racks, warnings)
    _repair(new, assignment, leaving, targets, racks)
    _choose_leaders(new, assignment, leaving, targets)
    final = {key: tuple(new.get(key, assignment[key])) for key in assignment}
    moves = tuple(
        Move(t, p, tuple(assignment[(t, p)]), final[(t, p)])
        for t, p in sorted(new)
        if final[(t, p)] != tuple(assignment[(t, p)])
    )
    return ReassignPlan(
        mode=MOVE_OFF,
        brokers=tuple(sorted(leaving)),
        targets=tuple(targets),
        moves=moves,
        before=before,
        after=balance_of(final, targets),
        partitions_considered=len(assignment),
        warnings=tuple(warnings),
    )


def _had_distinct_racks(replicas: Sequence[int], racks: Mapping[int, str | None]) -> bool:
    known = [racks.get(b) for b in replicas]
    return len(replicas) > 1 and None not in known and len(set(known)) == len(known)


def _place(
    assignment: Mapping[Key, Sequence[int]],
    leaving: frozenset[int],
    targets: list[int],
    racks: Mapping[int, str | None],
    warnings: list[str],
) -> dict[Key, list[int]]:
    """Replace each replica on a leaving broker by the least loaded eligible broker (leaders untouched)."""
    counts = dict.fromkeys(targets, 0)
    pending: list[Key] = []
    for key in sorted(assignment):
        replicas = assignment[key]
        for broker in replicas:
            if broker in counts:
                counts[broker] += 1
        if any(b in leaving for b in replicas):
            pending.append(key)
    heap = [(n, b) for b, n in counts.items()]
    heapq.heapify(heap)
    fallback: list[Key] = []
    new: dict[Key, list[int]] = {}
    for key in pending:
        replicas = list(assignment[key])
        staying = [b for b in replicas if b not in leaving]
        rf = len(replicas)
        if len(set(replicas)) > len(targets) or rf > len(targets):
            raise UsageError(
                f"cannot move {key[0]}-{key[1]} (replicas {_ids(replicas)}) off broker(s) {_ids(sorted(leaving))}: "
                f"it needs {rf} brokers and only {len(targets)} other broker(s) are registered"
            )
        used = set(staying)
        distinct = _had_distinct_racks(replicas, racks)
        used_racks = {racks[b] for b in staying}
        for position, broker in enumerate(replicas):
            if broker not in leaving:
                continue
            chosen, rack_kept = _pop_eligible(heap, counts, used, used_racks if distinct else None, racks)
            if not rack_kept:
                fallback.append(key)
            replicas[position] = chosen
            used.add(chosen)
            used_racks.add(racks[chosen])
            counts[chosen] += 1
            heapq.heappush(heap, (counts[chosen], chosen))
        new[key] = replicas
    if fallback:
        shown = ", ".join(f"{t}-{p}" for t, p in sorted(set(fallback))[:10])
        warnings.append(
            f"{len(set(fallback))} partition(s) cannot keep every replica on a distinct rack with the remaining "
            f"brokers: {shown}{' ...' if len(set(fallback)) > 10 else ''}"
        )
    return new


def _pop_eligible(
    heap: list[tuple[int, int]],
    counts: Mapping[int, int],
    used: set[int],
    avoid_racks: set[str | None] | None,
    racks: Mapping[int, str | None],
) -> tuple[int, bool]:
    """The least loaded broker not in ``used`` (on a rack not in ``avoid_racks`` if any such broker exists).

    Returns (broker, whether the rack rule held). Stale heap entries (counts moved on) are dropped; the
    entries looked at and not taken are pushed back.
    """
    skipped: list[tuple[int, int]] = []
    first_free: int | None = None
    chosen: int | None = None
    while heap:
        count, broker = heapq.heappop(heap)
        if counts[broker] != count:
            continue  # stale
        skipped.append((count, broker))
        if broker in used:
            continue
        if first_free is None:
            first_free = broker
        if avoid_racks is None or racks[broker] not in avoid_racks:
            chosen = broker
            break
    for entry in skipped:
        if entry[1] != chosen:
            heapq.heappush(heap, entry)
    if chosen is not None:
        return chosen, True
    if first_free is None:  # guarded by the replication-factor check
        raise GuardError("no eligible broker left for a replica")
    return first_free, False  # its pushed-back entry goes stale when the caller bumps its count


def _repair(
    new: dict[Key, list[int]],
    assignment: Mapping[Key, Sequence[int]],
    leaving: frozenset[int],
    targets: list[int],
    racks: Mapping[int, str | None],
) -> None:
    """Move new replicas from the fullest to the emptiest brokers while the spread exceeds 1."""
    if len(targets) < 2:
        return
    counts = dict.fromkeys(targets, 0)
    for key, replicas in assignment.items():
        for broker in new.get(key, replicas):
            if broker in counts:
                counts[broker] += 1
    # Slots that may move: positions that held a leaving broker.
    slots: dict[int, list[tuple[Key, int]]] = {b: [] for b in targets}
    for key, replicas in new.items():
        for position, broker in enumerate(assignment[key]):
            if broker in leaving:
                slots[replicas[position]].append((key, position))
    for _ in range(sum(len(s) for s in slots.values())):
        order = sorted(targets, key=lambda b: (counts[b], b))
        low_count = counts[order[0]]
        if counts[order[-1]] - low_count <= 1:
            return
        moved = False
        for high in reversed(order):
            if counts[high] - low_count <= 1:
                break
            for index, (key, position) in enumerate(slots[high]):
                replicas = new[key]
                distinct = _had_distinct_racks(assignment[key], racks)
                other_racks = {racks[b] for i, b in enumerate(replicas) if i != position}
                for low in order:
                    if counts[high] - counts[low] <= 1:
                        break
                    if low in replicas or (distinct and racks[low] in other_racks):
                        continue
                    replicas[position] = low
                    counts[high] -= 1
                    counts[low] += 1
                    slots[high].pop(index)
                    slots[low].append((key, position))
                    moved = True
                    break
                if moved:
                    break
            if moved:
                break
        if not moved:
            return


def _choose_leaders(
    new: dict[Key, list[int]],
    assignment: Mapping[Key, Sequence[int]],
    leaving: frozenset[int],
    targets: list[int],
) -> None:
    """Give the leader position of each moved preferred leader to the staying replica leading least."""
    leaders = dict.fromkeys(targets, 0)
    lost: list[Key] = []
    for key, replicas in assignment.items():
        if not replicas:
            continue
        if replicas[0] in leaving:
            lost.append(key)
        elif replicas[0] in leaders:
            leaders[replicas[0]] += 1
    # Candidates per lost leader: the positions of staying replicas (all positions when none stays).
    options: dict[Key, list[int]] = {}
    for key in sorted(lost):
        replicas = new[key]
        staying = [i for i, b in enumerate(assignment[key]) if b not in leaving]
        options[key] = staying or list(range(len(replicas)))
        best = min(options[key], key=lambda i: (leaders.get(replicas[i], 0), i))
        replicas[0], replicas[best] = replicas[best], replicas[0]
        options[key] = [0 if i == best else best if i == 0 else i for i in options[key]]
        leaders[replicas[0]] = leaders.get(replicas[0], 0) + 1
    _rebalance_leaders(new, options, leaders)


def _rebalance_leaders(new: dict[Key, list[int]], options: dict[Key, list[int]], leaders: dict[int, int]) -> None:
    """Shift leads along chains (u leads a partition v could lead, v one w could...) from the brokers
    leading most to ones leading at least two fewer, until no chain exists: an augmenting-path search
    over the candidates, so the spread is as small as the candidates allow, not merely locally."""
    # Insertion-ordered (dicts, not sets): string hashes vary per process and plans must not.
    led_by: dict[int, dict[Key, None]] = {}
    for key in options:
        led_by.setdefault(new[key][0], {})[key] = None
    for _ in range(len(options) + 1):
        path = None
        for start in sorted(leaders, key=lambda b: (-leaders[b], b)):
            path = _chain(start, new, options, leaders, led_by)
            if path is not None:
                break
        if path is None:
            return
        for key, position in path:
            replicas = new[key]
            old, successor = replicas[0], replicas[position]
            del led_by[old][key]
            led_by.setdefault(successor, {})[key] = None
            replicas[0], replicas[position] = successor, old
        first, last = path[0], path[-1]
        leaders[new[first[0]][first[1]]] -= 1  # the old leader of the first partition now sits there
        leaders[new[last[0]][0]] = leaders.get(new[last[0]][0], 0) + 1


def _chain(
    start: int,
    new: dict[Key, list[int]],
    options: dict[Key, list[int]],
    leaders: dict[int, int],
    led_by: dict[int, dict[Key, None]],
) -> list[tuple[Key, int]] | None:
    """A breadth-first chain of (partition, candidate position) from ``start`` to a broker leading at
    most ``leaders[start] - 2``, or None."""
    limit = leaders[start] - 2
    came: dict[int, tuple[int, Key, int] | None] = {start: None}
    queue = [start]
    for broker in queue:
        for key in led_by.get(broker, {}):
            replicas = new[key]
            for position in options[key]:
                successor = replicas[position]
                if position == 0 or successor in came:
                    continue
                came[successor] = (broker, key, position)
                if leaders.get(successor, 0) <= limit:
                    path: list[tuple[Key, int]] = []
                    node = successor
                    while (step := came[node]) is not None:
                        node, step_key, step_position = step
                        path.append((step_key, step_position))
                    return path[::-1]
                queue.append(successor)
    return None


# ---- --onto: Kafka's --generate ---------------------------------------------------------------------


def plan_onto(
    assignment: Mapping[Key, Sequence[int]],
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
            f"Unknown broker id(s) in --onto: {_ids(unknown)} (registered: {_ids(sorted(registered))}); "
            "Kafka's --generate would silently leave them out, kzc refuses"
        )
    metas = broker_metadatas([registered[b] for b in onto], rack_aware)
    rng = random.Random(seed)
    by_topic: dict[str, list[int]] = {}
    for topic, partition in assignment:
        by_topic.setdefault(topic, []).append(partition)
    final: dict[Key, tuple[int, ...]] = {}
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


# ---- reading a reassignment file (kafka-reassign-partitions.sh --execute) ----------------------------


@dataclass(frozen=True)
class ReassignmentFile:
    """A parsed reassignment file: target replicas per partition and the ``current`` each entry names."""

    targets: tuple[tuple[Key, tuple[int, ...]], ...]
    current: Mapping[Key, tuple[int, ...]]


def parse_reassignment_file(text: str) -> ReassignmentFile:
    """``parseExecuteAssignmentArgs`` (Kafka 2.5 to 3.9): the file's checks with Kafka's messages.

    Raises:
        KafkaRuleError: ``AdminCommandFailedException`` for an empty list, an empty replica list,
            duplicate partitions or duplicate replicas; UsageError for text that is not such JSON.
    """
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise UsageError(f"the reassignment file is not JSON: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("partitions", []), list):
        raise UsageError('the reassignment file must be {"version":1,"partitions":[...]}')
    if data.get("version", 1) != 1:
        raise KafkaRuleError(f"Not supported version field value {data.get('version')}", "AdminOperationException")
    targets: list[tuple[Key, tuple[int, ...]]] = []
    current: dict[Key, tuple[int, ...]] = {}
    for index, entry in enumerate(data.get("partitions", [])):
        try:
            key = (str(entry["topic"]), _int(entry["partition"]))
            replicas = tuple(_int(b) for b in entry["replicas"])
            if "current" in entry:
                current[key] = tuple(_int(b) for b in entry["current"])
        except (KeyError, TypeError, ValueError):
            raise UsageError(
                f"entry {index} of the reassignment file needs topic, partition and replicas (integers)"
            ) from None
        targets.append((key, replicas))
    _rule = "AdminCommandFailedException"
    if not targets:
        raise KafkaRuleError("Partition reassignment list cannot be empty", _rule)
    if any(not replicas for _, replicas in targets):
        raise KafkaRuleError("Partition replica list cannot be empty", _rule)
    keys = [k for k, _ in targets]
    duplicate_keys = sorted({k for k in keys if keys.count(k) > 1}) if len(set(keys)) != len(keys) else []
    if duplicate_keys:
        raise KafkaRuleError(
            "Partition reassignment contains duplicate topic partitions: "
            + ",".join(f"{t}-{p}" for t, p in duplicate_keys),
            _rule,
        )
    duplicated = [(k, sorted({b for b in r if r.count(b) > 1})) for k, r in targets if len(set(r)) != len(r)]
    if duplicated:
        message = ". ".join(
            f"{t}-{p} contains multiple entries for {','.join(map(str, d))}" for (t, p), d in duplicated
        )
        raise KafkaRuleError(f"Partition replica lists may not contain duplicate entries: {message}", _rule)
    return ReassignmentFile(tuple(targets), current)


def check_partitions_and_brokers(
    targets: Sequence[tuple[Key, Sequence[int]]], existing: Mapping[Key, Sequence[int]], broker_ids: Iterable[int]
) -> None:
    """``verifyReplicasAndBrokersInAssignment`` (ZooKeeper path, 2.5 to 2.8): partitions and brokers exist.

    Raises:
        KafkaRuleError: "The proposed assignment contains non-existent partitions: ..." or
            "... non-existent brokerIDs: ..." (``AdminCommandFailedException``).
    """
    missing = [k for k, _ in targets if k not in existing]
    if missing:
        listed = ", ".join(f"{t}-{p}" for t, p in missing)
        raise KafkaRuleError(
            f"The proposed assignment contains non-existent partitions: List({listed})", "AdminCommandFailedException"
        )
    known = set(broker_ids)
    unknown = sorted({b for _, r in targets for b in r if b not in known})
    if unknown:
        raise KafkaRuleError(
            "The proposed assignment contains non-existent brokerIDs: " + ",".join(map(str, unknown)),
            "AdminCommandFailedException",
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


def _int(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(value)
    return value


def _ids(ids: Iterable[int]) -> str:
    return ", ".join(map(str, ids))
