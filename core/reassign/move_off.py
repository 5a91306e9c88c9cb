"""``--move-off``, pure: minimal movement of every replica off some brokers (``plan_move_off``).

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
from collections.abc import Iterable, Mapping, Sequence

from core.errors import GuardError, UsageError
from core.kafka.assignment import BrokerMeta
from core.kafka.topic_partition import TopicPartition
from core.reassign.plan import MOVE_OFF, Move, ReassignPlan, balance_of, ids_text


def plan_move_off(
    assignment: Mapping[TopicPartition, Sequence[int]], brokers: Sequence[BrokerMeta], move_off: Iterable[int]
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
        warnings.append(f"broker(s) {ids_text(unknown)} are not registered; their replicas move all the same")
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
    assignment: Mapping[TopicPartition, Sequence[int]],
    leaving: frozenset[int],
    targets: list[int],
    racks: Mapping[int, str | None],
    warnings: list[str],
) -> dict[TopicPartition, list[int]]:
    """Replace each replica on a leaving broker by the least loaded eligible broker (leaders untouched)."""
    counts = dict.fromkeys(targets, 0)
    pending: list[TopicPartition] = []
    for key in sorted(assignment):
        replicas = assignment[key]
        for broker in replicas:
            if broker in counts:
                counts[broker] += 1
        if any(b in leaving for b in replicas):
            pending.append(key)
    heap = [(n, b) for b, n in counts.items()]
    heapq.heapify(heap)
    fallback: list[TopicPartition] = []
    new: dict[TopicPartition, list[int]] = {}
    for key in pending:
        replicas = list(assignment[key])
        staying = [b for b in replicas if b not in leaving]
        rf = len(replicas)
        if len(set(replicas)) > len(targets) or rf > len(targets):
            raise UsageError(
                f"cannot move {key[0]}-{key[1]} (replicas {ids_text(replicas)}) off broker(s) "
                f"{ids_text(sorted(leaving))}: "
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
    new: dict[TopicPartition, list[int]],
    assignment: Mapping[TopicPartition, Sequence[int]],
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
    slots: dict[int, list[tuple[TopicPartition, int]]] = {b: [] for b in targets}
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
    new: dict[TopicPartition, list[int]],
    assignment: Mapping[TopicPartition, Sequence[int]],
    leaving: frozenset[int],
    targets: list[int],
) -> None:
    """Give the leader position of each moved preferred leader to the staying replica leading least."""
    leaders = dict.fromkeys(targets, 0)
    lost: list[TopicPartition] = []
    for key, replicas in assignment.items():
        if not replicas:
            continue
        if replicas[0] in leaving:
            lost.append(key)
        elif replicas[0] in leaders:
            leaders[replicas[0]] += 1
    # Candidates per lost leader: the positions of staying replicas (all positions when none stays).
    options: dict[TopicPartition, list[int]] = {}
    for key in sorted(lost):
        replicas = new[key]
        staying = [i for i, b in enumerate(assignment[key]) if b not in leaving]
        options[key] = staying or list(range(len(replicas)))
        best = min(options[key], key=lambda i: (leaders.get(replicas[i], 0), i))
        replicas[0], replicas[best] = replicas[best], replicas[0]
        options[key] = [0 if i == best else best if i == 0 else i for i in options[key]]
        leaders[replicas[0]] = leaders.get(replicas[0], 0) + 1
    _rebalance_leaders(new, options, leaders)


def _rebalance_leaders(
    new: dict[TopicPartition, list[int]], options: dict[TopicPartition, list[int]], leaders: dict[int, int]
) -> None:
    """Shift leads along chains (u leads a partition v could lead, v one w could...) from the brokers
    leading most to ones leading at least two fewer, until no chain exists: an augmenting-path search
    over the candidates, so the spread is as small as the candidates allow, not merely locally."""
    # Insertion-ordered (dicts, not sets): string hashes vary per process and plans must not.
    led_by: dict[int, dict[TopicPartition, None]] = {}
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
    new: dict[TopicPartition, list[int]],
    options: dict[TopicPartition, list[int]],
    leaders: dict[int, int],
    led_by: dict[int, dict[TopicPartition, None]],
) -> list[tuple[TopicPartition, int]] | None:
    """A breadth-first chain of (partition, candidate position) from ``start`` to a broker leading at
    most ``leaders[start] - 2``, or None."""
    limit = leaders[start] - 2
    came: dict[int, tuple[int, TopicPartition, int] | None] = {start: None}
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
                    path: list[tuple[TopicPartition, int]] = []
                    node = successor
                    while (step := came[node]) is not None:
                        node, step_key, step_position = step
                        path.append((step_key, step_position))
                    return path[::-1]
                queue.append(successor)
    return None
