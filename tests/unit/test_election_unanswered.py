"""An ElectLeaders the controller carried out but left unanswered (its answer waits in Kafka's purgatory past
kzc's wait, ``core.elections.ops``) is reported by what ZooKeeper shows; unanswered and not carried out, the
brokers' error stands. No cluster: the AdminClient and the ZooKeeper reads are stand-ins (the real election
runs in tests/integration/test_versions.py and test_fix_actions.py)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from core.brokers.capabilities import VIA_ADMIN
from core.config import ConnectionSettings
from core.connect import parse_zookeeper
from core.elections.ops import ElectionOps
from core.elections.plan import ALREADY, Candidate, PreferredPlan, UncleanPlan
from core.errors import ConnectError
from core.kafka.znodes import PartitionState

SETTINGS = ConnectionSettings(zookeeper=parse_zookeeper("127.0.0.1:1"))
UNANSWERED = ConnectError("Kafka brokers 127.0.0.1:9092 did not answer to elect leaders within 15 s")


class SilentAdmin:
    """An AdminClient whose ElectLeaders gets no answer."""

    timeout = 15.0

    def elect_leaders(self, election: str, partitions: Any) -> Any:
        raise UNANSWERED


def _ops(leader: int) -> ElectionOps:
    """ElectionOps whose ZooKeeper shows orders-0 (replicas [1, 2]) led by ``leader``."""
    ops = ElectionOps(SimpleNamespace(client=None), SilentAdmin(), SETTINGS)  # type: ignore[arg-type]
    state = PartitionState(leader, 7, (leader,), 3, 0, 1)
    ops.reader = SimpleNamespace(  # type: ignore[assignment]
        facts=lambda: SimpleNamespace(controller=None, migration=None, broker_ids=frozenset({1, 2})),
        partition_states=lambda _topic, partitions: {p: state for p in partitions},
    )
    # The partition as the preferred election's follow-up reads it (``ElectionOps.look``).
    now = Candidate("orders", 0, (1, 2), leader, (leader,), ALREADY if leader == 1 else None)
    ops.look = lambda plan: [now]  # type: ignore[method-assign]
    return ops


UNCLEAN = UncleanPlan("orders", 0, (1, 2), (1,), new_leader=2)


def test_an_unclean_election_left_unanswered_is_done_when_zookeeper_shows_the_new_leader() -> None:
    assert _ops(leader=2).apply_unclean(UNCLEAN) is None


@pytest.mark.parametrize("leader", [-1, 1])
def test_an_unclean_election_left_unanswered_and_not_made_is_the_brokers_error(leader: int) -> None:
    with pytest.raises(ConnectError, match="did not answer"):
        _ops(leader=leader).apply_unclean(UNCLEAN)


PREFERRED = PreferredPlan((Candidate("orders", 0, (1, 2), 2, (1, 2), None),), (), VIA_ADMIN)


def test_a_preferred_election_left_unanswered_is_done_when_zookeeper_shows_the_preferred_leaders() -> None:
    assert _ops(leader=1).apply_preferred(PREFERRED) == {("orders", 0): None}


def test_a_preferred_election_left_unanswered_and_not_made_is_the_brokers_error() -> None:
    with pytest.raises(ConnectError, match="did not answer"):
        _ops(leader=2).apply_preferred(PREFERRED)
