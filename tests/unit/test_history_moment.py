"""A recorded moment as a snapshot (core.history.moment): what the store keeps, and nothing it does not."""

from __future__ import annotations

from core.history.diff import ClusterState
from core.history.moment import snapshot_of
from core.snapshot.release import NOT_RECORDED, broker_release, cluster_release


def test_the_release_at_a_recorded_moment_is_not_recorded_rather_than_an_era_made_up() -> None:
    """The store keeps each broker's rack and endpoint, not its registration version: the release shown at a
    moment says so, where a made-up registration version would read as "2.7+"."""
    state = ClusterState(
        "c1 at 03:12",
        {("orders", 0): ((1, 2), 1, (1, 2))},
        {1: ("r1", "127.0.0.1:9091"), 2: ("r2", "127.0.0.1:9092")},
        1,
    )
    snapshot = snapshot_of(state, 1_764_300_000_000)
    assert snapshot.recorded
    assert broker_release(snapshot, 1) == NOT_RECORDED
    assert cluster_release(snapshot) == "not recorded"
    assert snapshot.brokers[2].registration.rack == "r2"  # type: ignore[union-attr]
