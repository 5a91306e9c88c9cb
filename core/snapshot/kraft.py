"""Which brokers run KRaft during a ZooKeeper-to-KRaft migration, so that health counts them alive.

A broker rolled to KRaft leaves ``/brokers/ids`` but keeps serving and stays in the ISR the KRaft controller
keeps (and dual-writes). Its mode comes from ``core.kafka.migration.broker_modes`` (the one rule), fed with
the snapshot and, when asked, the brokers DescribeCluster lists. Every surface (``kzc check`` on both
engines, ``kzc describe``, ``kzc snapshot``, the console, ``kzc watch``) fills ``ClusterSnapshot.kraft_brokers``
through this module.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import replace

from core.config import KafkaSecurity
from core.connect import HostPort
from core.errors import KzcError
from core.kafka.migration import Mode, Phase, broker_modes
from core.kafka.znodes import ControllerInfo, PartitionState
from core.snapshot.model import ClusterSnapshot


def kraft_controller_holds(snapshot: ClusterSnapshot) -> bool:
    """Whether a KRaft controller holds ``/controller`` (brokers may run KRaft only then)."""
    c = snapshot.controller
    return isinstance(c, ControllerInfo) and c.is_kraft


def broker_sets(snapshot: ClusterSnapshot) -> tuple[frozenset[int], frozenset[int], frozenset[int]]:
    """Registered brokers, every broker id kzc knows of (registered or hosting a replica), brokers in an ISR."""
    registered = frozenset(snapshot.brokers)
    known: set[int] = set(registered)
    in_isr: set[int] = set()
    for _topic, _partition, replicas, state in snapshot.iter_partitions():
        known.update(replicas)
        if isinstance(state, PartitionState):
            in_isr.update(state.isr)
    return registered, frozenset(known), frozenset(in_isr)


def kraft_broker_ids(snapshot: ClusterSnapshot, served: Collection[int] | None) -> frozenset[int]:
    """The brokers running KRaft while a KRaft controller holds ``/controller``: absent from ``/brokers/ids`` but
    listed by the brokers (``served``) or, without them, in an ISR the KRaft controller keeps (``broker_modes``)."""
    if not kraft_controller_holds(snapshot):
        return frozenset()
    registered, known, in_isr = broker_sets(snapshot)
    modes = broker_modes(Phase.DUAL_WRITE, registered, known, served, in_isr, {})
    return frozenset(b.id for b in modes if b.mode is Mode.KRAFT)


def with_served_kraft_brokers(snapshot: ClusterSnapshot, served: Collection[int] | None) -> ClusterSnapshot:
    """``snapshot`` with ``kraft_brokers`` determined from it and ``served`` (None: the brokers were not asked,
    the ISR tells). Unchanged when no KRaft controller holds ``/controller``."""
    if not kraft_controller_holds(snapshot):
        return snapshot
    return replace(snapshot, kraft_brokers=kraft_broker_ids(snapshot, served))


def served_broker_ids(
    bootstrap: Sequence[HostPort] | None, security: KafkaSecurity, timeout: float = 10.0
) -> frozenset[int] | None:
    """The brokers DescribeCluster lists; None without ``bootstrap`` or when they do not answer (then the ISR
    tells, as without ``--bootstrap-server``)."""
    if not bootstrap:
        return None
    # Imported here: the AdminClient (confluent_kafka, ~0.15 s) is needed only during a migration to KRaft,
    # and every kzc snapshot and kzc describe would pay it at start otherwise.
    from core.brokers.admin import KafkaAdmin

    try:
        return KafkaAdmin(bootstrap, security=security, timeout=timeout).served_broker_ids()
    except KzcError:
        return None


def with_kraft_brokers(
    snapshot: ClusterSnapshot, bootstrap: Sequence[HostPort] | None, security: KafkaSecurity
) -> ClusterSnapshot:
    """``snapshot`` with the brokers that run KRaft during a migration counted as alive (absent from
    ``/brokers/ids`` but listed by DescribeCluster, or without ``bootstrap`` in an ISR), so health does not call
    them dead. Unchanged (and the brokers not asked) when no KRaft controller holds ``/controller``."""
    if not kraft_controller_holds(snapshot):
        return snapshot
    return with_served_kraft_brokers(snapshot, served_broker_ids(bootstrap, security))
