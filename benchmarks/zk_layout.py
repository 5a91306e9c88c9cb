"""A synthetic Kafka 3.9 layout of N partitions written straight into ZooKeeper, fast, for benchmarks.

No broker is needed: the znodes are the ones a ZooKeeper-mode cluster keeps (cluster id, controller and
its epoch, broker registrations, v3 topic znodes with topic ids, one ``state`` per partition, topic
configs, admin and notification roots), written under a chroot of their own so runs never mix. Writes
go in ZooKeeper multi transactions of ``OPS_PER_MULTI`` creates, pipelined, so 200k partitions
(~400k znodes) take seconds, not minutes.

Broker registrations and ``/controller`` are persistent here (a real broker writes them ephemeral) so
the layout outlives the client that wrote it; ``registered_brokers=0`` gives the "every broker is down"
layout (no registrations, no controller).

Run on its own to populate any ZooKeeper you can write to::

    .venv/bin/python benchmarks/zk_layout.py --zookeeper 127.0.0.1:2181 --partitions 100000
"""

from __future__ import annotations

import argparse
import base64
import json
import time
import uuid
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass

from kazoo.client import KazooClient

OPS_PER_MULTI = 1000  # ~200 KB per request, well under ZooKeeper's 1 MiB jute.maxbuffer
MULTIS_IN_FLIGHT = 8


@dataclass(frozen=True)
class Layout:
    """What ``populate`` wrote: where, how much, and how many znodes."""

    chroot: str
    topics: int
    partitions: int
    brokers: int
    registered_brokers: int
    znodes: int
    seconds: float

    @property
    def state_paths(self) -> Iterator[str]:
        """Every partition state path, relative to the chroot."""
        for topic, count in topic_sizes(self.topics, self.partitions):
            for p in range(count):
                yield f"/brokers/topics/{topic}/partitions/{p}/state"


def topic_name(index: int) -> str:
    """The name of synthetic topic ``index``."""
    return f"bench-topic-{index:06d}"


def topic_sizes(topics: int, partitions: int) -> Iterator[tuple[str, int]]:
    """(topic, partition count) spreading ``partitions`` over ``topics`` as evenly as possible."""
    base, extra = divmod(partitions, topics)
    for t in range(topics):
        yield topic_name(t), base + (1 if t < extra else 0)


def _topic_id(seed: int) -> str:
    return base64.urlsafe_b64encode(uuid.UUID(int=seed + 1).bytes).decode().rstrip("=")


def _znodes(topics: int, partitions: int, brokers: int, registered: int, rf: int) -> Iterator[tuple[str, bytes]]:
    """(path, data) in creation order (parents first) for the whole layout."""
    now = str(int(time.time() * 1000))
    for path in ("/brokers", "/brokers/ids", "/brokers/topics", "/brokers/seqid", "/admin", "/admin/delete_topics",
                 "/config", "/config/topics", "/config/clients", "/config/users", "/config/brokers", "/config/ips",
                 "/config/changes", "/isr_change_notification", "/log_dir_event_notification", "/consumers",
                 "/cluster"):  # fmt: skip
        yield path, b""
    yield "/cluster/id", json.dumps({"version": "1", "id": _topic_id(10**9)}).encode()
    yield "/controller_epoch", b"7"
    yield (
        "/latest_producer_id_block",
        b'{"version":1,"broker":1,"block_start":"0","block_end":"999"}',
    )
    yield "/feature", b'{"version":2,"status":1,"features":{"metadata.version":{"max_version_level":21}}}'
    for b in range(1, registered + 1):
        registration = {
            "listener_security_protocol_map": {"PLAINTEXT": "PLAINTEXT"},
            "endpoints": [f"PLAINTEXT://broker-{b}.example:9092"],
            "rack": f"r{(b - 1) % 3 + 1}",
            "jmx_port": -1,
            "features": {},
            "host": f"broker-{b}.example",
            "timestamp": now,
            "port": 9092,
            "version": 5,
        }
        yield f"/brokers/ids/{b}", json.dumps(registration, separators=(",", ":")).encode()
    if registered:
        yield "/controller", f'{{"version":2,"brokerid":1,"timestamp":"{now}","kraftControllerEpoch":-1}}'.encode()
    live = set(range(1, registered + 1))
    offset = 0
    for index, (topic, count) in enumerate(topic_sizes(topics, partitions)):
        assignment = {str(p): [(offset + p + r) % brokers + 1 for r in range(rf)] for p in range(count)}
        offset += count
        topic_json = {
            "partitions": assignment,
            "topic_id": _topic_id(index),
            "adding_replicas": {},
            "removing_replicas": {},
            "version": 3,
        }
        yield f"/config/topics/{topic}", b'{"version":1,"config":{"retention.ms":"86400000"}}'
        yield f"/brokers/topics/{topic}", json.dumps(topic_json, separators=(",", ":")).encode()
        yield f"/brokers/topics/{topic}/partitions", b""
        for p in range(count):
            replicas = assignment[str(p)]
            isr = [r for r in replicas if r in live] or replicas[-1:]
            leader = isr[0] if isr[0] in live else -1
            state = f'{{"controller_epoch":7,"leader":{leader},"version":1,"leader_epoch":3,"isr":{json.dumps(isr)}}}'
            yield f"/brokers/topics/{topic}/partitions/{p}", b""
            yield f"/brokers/topics/{topic}/partitions/{p}/state", state.replace(" ", "").encode()


def ensure_chroot(client: KazooClient, chroot: str) -> None:
    """Create ``chroot`` (and its parents) on a client that is not chrooted."""
    client.ensure_path(chroot)


def populate(
    hosts: str,
    chroot: str,
    partitions: int,
    topics: int | None = None,
    brokers: int = 6,
    registered_brokers: int | None = None,
    replication_factor: int = 3,
    timeout: float = 30.0,
) -> Layout:
    """Write the layout under ``chroot`` of the ZooKeeper at ``hosts`` (``chroot`` must not exist yet).

    Args:
        partitions: total partitions; spread over ``topics`` (default: one topic per 100 partitions).
        brokers: brokers the assignments use (ids 1..brokers).
        registered_brokers: how many of them are registered (default all; 0 = every broker down).
    """
    topics = topics or max(1, partitions // 100)
    registered = brokers if registered_brokers is None else registered_brokers
    started = time.monotonic()
    root = KazooClient(hosts=hosts, timeout=timeout)
    root.start(timeout=timeout)
    try:
        if root.exists(chroot):
            raise ValueError(f"{chroot} already exists: populate a fresh chroot")
        ensure_chroot(root, chroot)
    finally:
        root.stop()
        root.close()
    client = KazooClient(hosts=hosts + chroot, timeout=timeout)
    client.start(timeout=timeout)
    count = 0
    try:
        pending: deque[object] = deque()
        batch = client.transaction()
        size = 0
        for path, data in _znodes(topics, partitions, brokers, registered, replication_factor):
            batch.create(path, data)
            size += 1
            count += 1
            if size == OPS_PER_MULTI:
                pending.append(batch.commit_async())
                batch, size = client.transaction(), 0
                while len(pending) >= MULTIS_IN_FLIGHT:
                    _check(pending.popleft(), timeout)
        if size:
            pending.append(batch.commit_async())
        while pending:
            _check(pending.popleft(), timeout)
    finally:
        client.stop()
        client.close()
    return Layout(chroot, topics, partitions, brokers, registered, count, time.monotonic() - started)


def _check(result: object, timeout: float) -> None:
    outcome = result.get(timeout=timeout)  # type: ignore[attr-defined]
    failures = [r for r in outcome if isinstance(r, Exception)]
    if failures:
        raise RuntimeError(f"a multi transaction failed: {failures[0]!r}")


def main() -> None:
    """Populate a ZooKeeper from the command line and print what was written."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--zookeeper", required=True, metavar="HOST:PORT", help="ZooKeeper, without chroot")
    parser.add_argument("--chroot", default=None, help="where to write (default /kzc-layout-<random>)")
    parser.add_argument("--partitions", type=int, default=100_000)
    parser.add_argument("--topics", type=int, default=None, help="default: partitions / 100")
    parser.add_argument("--brokers", type=int, default=6)
    parser.add_argument("--registered-brokers", type=int, default=None, help="0: every broker down")
    args = parser.parse_args()
    chroot = args.chroot or f"/kzc-layout-{uuid.uuid4().hex[:8]}"
    layout = populate(args.zookeeper, chroot, args.partitions, args.topics, args.brokers, args.registered_brokers)
    print(
        f"wrote {layout.znodes} znodes ({layout.topics} topics, {layout.partitions} partitions) "
        f"under {args.zookeeper}{layout.chroot} in {layout.seconds:.1f} s"
    )


if __name__ == "__main__":
    main()
