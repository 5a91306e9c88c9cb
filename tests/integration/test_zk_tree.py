"""Generic znode browsing against the sandbox's ZooKeeper: paging, the large-list guard, decoding, errors."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from kazoo.client import KazooClient
from kazoo.security import make_digest_acl

from core.config import ConnectionSettings
from core.connect import parse_zookeeper
from core.console.zk import ZkBackend
from core.errors import ConnectError, KzcError, UsageError
from core.kafka.znodes import BrokerRegistration, ZnodeKind
from core.sandbox.local_cluster import Sandbox
from core.zookeeper.session import ZkSession
from core.zookeeper.tree import check_path, child_sort_key, list_children, read_znode, stat_of

SECRET_AUTH = "kzc-test:secret"


def _session(connect: str) -> ZkSession:
    session = ZkSession(ConnectionSettings(zookeeper=parse_zookeeper(connect)))
    session.start()
    return session


@pytest.fixture
def kafka(sandbox: Sandbox) -> Iterator[ZkSession]:
    session = _session(sandbox.info().zookeeper)
    yield session
    session.stop()


@pytest.fixture
def area(sandbox: Sandbox, unique_name: str) -> Iterator[tuple[ZkSession, KazooClient]]:
    """A session chrooted at a fresh test area, and a plain client inside it to set things up."""
    hosts = sandbox.info().zookeeper.rsplit("/", 1)[0]
    root = KazooClient(hosts=hosts)
    root.start(timeout=30)
    path = f"/kzc-tree-{unique_name}"
    root.ensure_path(path)
    client = KazooClient(hosts=hosts + path)
    client.start(timeout=30)
    session = _session(hosts + path)
    yield session, client
    session.stop()
    client.stop()
    client.close()
    root.add_auth("digest", SECRET_AUTH)  # to clean up znodes a test protected with it
    root.delete(path, recursive=True)
    root.stop()
    root.close()


def _make_children(client: KazooClient, parent: str, names: list[str]) -> None:
    client.ensure_path(parent)
    batch = client.transaction()
    for name in names:
        batch.create(f"{parent}/{name}", b"")
    batch.commit()


class _CountingChildren:
    """Delegates to the real client and counts getChildren calls (ZooKeeper is not mocked)."""

    def __init__(self, client: KazooClient) -> None:
        self.client = client
        self.calls = 0
        self.original = client.get_children

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        return self.original(*args, **kwargs)


def test_children_are_sorted_with_numbers_in_numeric_order(kafka: ZkSession) -> None:
    page = list_children(kafka, "/brokers/ids")
    assert (page.names, page.total, page.listed, page.next_cursor) == (("1", "2", "3"), 3, True, None)
    assert sorted(["10", "9", "b", "a", "0"], key=child_sort_key) == ["0", "9", "10", "a", "b"]


def test_a_child_list_is_paged_from_one_fetch_without_gaps_or_repeats(
    area: tuple[ZkSession, KazooClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    session, client = area
    names = [f"n{i:03d}" for i in range(57)]
    _make_children(client, "/many", names)
    counter = _CountingChildren(session.client)
    monkeypatch.setattr(session.client, "get_children", counter)
    pages = [list_children(session, "/many", page_size=20)]
    while pages[-1].next_cursor is not None:
        pages.append(list_children(session, "/many", page_size=20, cursor=pages[-1].next_cursor))
    assert [len(p.names) for p in pages] == [20, 20, 17]
    assert [p.offset for p in pages] == [0, 20, 40]
    assert [n for p in pages for n in p.names] == names
    assert all(p.total == 57 and not p.changed for p in pages)
    assert counter.calls == 1  # later pages only re-read the stat


def test_above_the_threshold_names_are_fetched_only_when_asked(
    area: tuple[ZkSession, KazooClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    session, client = area
    _make_children(client, "/huge", [str(i) for i in range(45)])
    counter = _CountingChildren(session.client)
    monkeypatch.setattr(session.client, "get_children", counter)
    guarded = list_children(session, "/huge", page_size=10, large_threshold=30)
    assert (guarded.listed, guarded.names, guarded.total, guarded.next_cursor) == (False, (), 45, None)
    assert counter.calls == 0  # numChildren came from the stat alone
    asked = list_children(session, "/huge", page_size=10, large_threshold=30, fetch_large=True)
    assert asked.listed and asked.names == tuple(str(i) for i in range(10)) and counter.calls == 1


def test_a_list_that_changed_after_the_fetch_is_flagged_on_the_next_page(area: tuple[ZkSession, KazooClient]) -> None:
    session, client = area
    _make_children(client, "/moving", ["a", "b", "c"])
    first = list_children(session, "/moving", page_size=2)
    client.create("/moving/d")
    assert first.next_cursor is not None
    second = list_children(session, "/moving", page_size=2, cursor=first.next_cursor)
    assert (second.names, second.total, second.changed) == (("c",), 4, True)
    with pytest.raises(UsageError, match="this cursor pages /moving"):
        list_children(session, "/elsewhere", cursor=first.next_cursor)


def test_a_kafka_znode_is_decoded_with_stat_times_and_acl(kafka: ZkSession) -> None:
    view = read_znode(kafka, "/brokers/ids/1")
    assert view.kafka_kind is ZnodeKind.BROKER and view.data.kind == "kafka"
    assert isinstance(view.data.parsed, BrokerRegistration) and view.data.parsed.rack == "r1"
    assert view.stat.ephemeral and view.stat.ctime.endswith(" UTC") and view.stat.data_length == len(view.raw)
    assert [str(a) for a in view.acl] == ["world:anyone: cdrwa"]
    rows = view.explained()
    assert rows and rows[0][0] == "broker id"
    as_json = view.to_json()
    assert as_json["kafka_format"] == "broker registration" and as_json["readable"] is True
    assert as_json["stat"]["ephemeral_owner"] != 0 and as_json["acl"] == [
        {"perms": "cdrwa", "scheme": "world", "id": "anyone"}
    ]


def test_other_data_shows_as_text_or_hex_and_malformed_kafka_data_says_why(
    area: tuple[ZkSession, KazooClient],
) -> None:
    session, client = area
    client.create("/notes", "hello ünïcode\n".encode())
    client.create("/blob", bytes(range(0, 40)))
    client.create("/empty", b"")
    client.create("/controller", b"{broken")  # a Kafka path: parsed as Kafka's format, reported unreadable
    notes = read_znode(session, "/notes")
    assert (notes.data.kind, notes.data.text) == ("text", "hello ünïcode\n")
    blob = read_znode(session, "/blob")
    assert blob.data.kind == "hex" and blob.data.text.startswith("00000000  00 01 02")
    assert read_znode(session, "/empty").data.kind == "empty"
    controller = read_znode(session, "/controller").to_json()
    assert controller["kafka_format"] == "controller" and controller["readable"] is False
    assert "not JSON" in controller["problem"]
    assert notes.kafka_kind is None and notes.explained() == []


def test_missing_denied_and_malformed_paths_are_clear_errors(area: tuple[ZkSession, KazooClient]) -> None:
    session, client = area
    with pytest.raises(KzcError, match="znode /nope does not exist \\(under the chroot /kzc-tree-"):
        read_znode(session, "/nope")
    with pytest.raises(KzcError, match="does not exist"):
        list_children(session, "/nope")
    user, password = SECRET_AUTH.split(":")
    client.create("/secret", b"x", acl=[make_digest_acl(user, password, all=True)])
    for attempt in (read_znode, stat_of, list_children):
        with pytest.raises(ConnectError, match=r"denied the request to .* /secret \(NoAuth\)"):
            attempt(session, "/secret")
    for bad in ("brokers", "/brokers/", "/a//b", "/a/../b"):
        with pytest.raises(UsageError, match="is not a ZooKeeper path"):
            check_path(bad)
    with pytest.raises(UsageError, match="page size"):
        list_children(session, "/", page_size=0)


def test_the_console_backend_pages_a_big_list_from_one_fetch_and_refetches_after_a_change(
    sandbox: Sandbox, area: tuple[ZkSession, KazooClient], unique_name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, client = area
    names = [f"n{i:04d}" for i in range(1_050)]
    _make_children(client, "/big", names)
    client.ensure_path("/brokers/ids")  # the console connects only where a Kafka cluster is
    calls: list[str] = []
    original = KazooClient.get_children

    def counting(self: KazooClient, path: str, *args: Any, **kwargs: Any) -> Any:
        calls.append(path)
        return original(self, path, *args, **kwargs)

    monkeypatch.setattr(KazooClient, "get_children", counting)
    hosts = sandbox.info().zookeeper.rsplit("/", 1)[0]
    backend = ZkBackend(ConnectionSettings(zookeeper=parse_zookeeper(f"{hosts}/kzc-tree-{unique_name}")))
    backend.connect()
    try:
        pages = [backend.children("/big", offset, 500) for offset in (0, 500, 1_000)]
        assert [n for p in pages for n in p.names] == names
        assert [p.total for p in pages] == [1_050] * 3 and [p.has_more for p in pages] == [True, True, False]
        assert calls.count("/big") == 1  # pages 2 and 3 are slices of the first fetch
        client.create("/big/n0499a")
        second = backend.children("/big", 500, 500)
        assert calls.count("/big") == 2 and second.names[0] == "n0499a" and second.total == 1_051
    finally:
        backend.close()
