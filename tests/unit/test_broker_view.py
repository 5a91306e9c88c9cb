"""One broker's view from a snapshot: what it leads and hosts, its replicas out of the ISR, the offline
partitions it hosts, and its registration (the live part, session and log sizes, is in
tests/integration/test_stop_check.py)."""

from __future__ import annotations

from core.snapshot.broker_view import broker_view
from core.testdata.builder import broker, snapshot, state, topic


def test_leads_hosts_out_of_isr_and_offline() -> None:
    cluster = snapshot(
        brokers=(broker(1, rack="r1"), 2, 3),
        topics=[
            topic("a", {0: (1, 2), 1: (2, 1), 2: (2, 3)}, states={1: state(2, (2,))}),
            topic("b", {0: (4, 1)}, states={0: state(4, (4,))}),  # led by unregistered 4: offline
        ],
    )
    view = broker_view(cluster, 1)
    assert [r.name for r in view.hosted] == ["a-0", "a-1", "b-0"]
    assert [r.name for r in view.leads] == ["a-0"]
    assert [(r.name, r.leader, r.isr) for r in view.out_of_isr] == [("a-1", 2, (2,)), ("b-0", None, (4,))]
    assert [r.name for r in view.offline] == ["b-0"] and "not a registered broker" in (view.offline[0].offline or "")
    assert view.registered and view.rack == "r1" and view.endpoints == ("PLAINTEXT://h1:9092",)
    assert view.plaintext == ("h1", 9092) and view.registration_version == 5 and view.broker_epoch == 101
    data = view.to_json()
    assert data["leads"] == ["a-0"] and data["hosts"] == 3 and data["out_of_isr"][0]["partition"] == "a-1"


def test_a_broker_that_is_gone_still_shows_its_replicas() -> None:
    cluster = snapshot(brokers=(1, 2), topics=[topic("a", {0: (3, 1)}, states={0: state(1, (1,))})])
    view = broker_view(cluster, 3)
    assert not view.registered and view.problem == "not registered in /brokers/ids"
    assert [r.name for r in view.out_of_isr] == ["a-0"] and view.plaintext is None
