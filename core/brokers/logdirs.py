"""Log directories and replica log sizes: DescribeLogDirs v0 or v1 over kzc's own socket to one broker.

Why kzc's own request: confluent-kafka 2.16 has no DescribeLogDirs, and each broker answers only for its
own log directories, so the request goes to every broker whose replicas matter: to its listener of the
client's security protocol, with TLS and the SASL login ``core.brokers.apiversions.open_broker`` does.

Versions (``DescribeLogDirsRequest.json``): v0 in 1.0 and 1.1, v0-v1 from 2.0, where v1 has the same fields
and only changes when a throttled broker answers (KIP-219); v2 (2.4) is the first flexible version, v3 (3.0)
adds a top-level error code, v4 (3.3, KIP-827) each dir's total and usable bytes (the volume's size and free
space, what "time until full" needs). kzc speaks v0-v4 and sends the highest the broker lists in ApiVersions
(``core.brokers.apiversions``): a 1.1 broker cannot parse v1, a 0.10/0.11 broker has no DescribeLogDirs at all
(``NoVersion`` then says so).

Request: ``topics`` ARRAY of (STRING name, ARRAY INT32 partitions), or null for
every replica the broker holds (``DescribeLogDirsRequest.isAllTopicPartitions``); an empty array asks for no
replica, and the broker still lists every log dir with its error (``ReplicaManager.describeLogDirs``), the
cheap way to learn which dirs are offline. Response: throttle time, then per log dir (``log.dirs``) an error
code (``KAFKA_STORAGE_ERROR``: the dir is offline, its replicas are not listed), the path and per topic and
partition its size, offset lag and whether it is a future replica (a move between log dirs in progress,
KIP-113: listed, never counted in sizes).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from core.brokers.apiversions import DESCRIBE_LOG_DIRS, NoVersion, no_listener, request
from core.brokers.codec import Decoder, Encoder, FixedRow
from core.brokers.wire import frame
from core.config import KafkaSecurity
from core.kafka.topic_partition import TopicPartition

VERSIONS = (0, 4)  # what this module encodes and decodes
_FIRST_FLEXIBLE = 2
_FIRST_CAPACITY = 4  # TotalBytes and UsableBytes of each dir (Kafka 3.3+)
KAFKA_STORAGE_ERROR = 56
# The error codes a log dir may carry (``Errors.java``); others are shown by number.
ERROR_NAMES = {
    -1: "UNKNOWN_SERVER_ERROR",
    31: "CLUSTER_AUTHORIZATION_FAILED",
    KAFKA_STORAGE_ERROR: "KAFKA_STORAGE_ERROR",
}

_PARTITION = FixedRow("int32", "int64", "int64", "int8")  # partition, size, offset lag, is future


@dataclass(frozen=True, slots=True)
class ReplicaLog:
    """One replica's log in one log dir, as the broker reports it."""

    topic: str
    partition: int
    size: int
    offset_lag: int
    future: bool  # the target of a move between log dirs (KIP-113): not counted

    @property
    def key(self) -> TopicPartition:
        """(topic, partition)."""
        return (self.topic, self.partition)


@dataclass(frozen=True)
class LogDir:
    """One log dir of a broker: its path, error code (0: online) and the replicas it holds (of those asked)."""

    path: str
    error: int
    replicas: tuple[ReplicaLog, ...] = ()
    total_bytes: int | None = None  # the volume's size (v4+, Kafka 3.3+); None: not reported
    usable_bytes: int | None = None  # the volume's space free for the broker (v4+); None: not reported

    @property
    def offline(self) -> bool:
        """``KAFKA_STORAGE_ERROR``: the broker marked the dir offline (a failed disk, KIP-112)."""
        return self.error == KAFKA_STORAGE_ERROR

    @property
    def error_name(self) -> str | None:
        """The error's name (``KAFKA_STORAGE_ERROR``), None when online."""
        if self.error == 0:
            return None
        return ERROR_NAMES.get(self.error, f"error code {self.error}")

    @property
    def size(self) -> int:
        """The bytes of its replicas (future replicas left out)."""
        return sum(r.size for r in self.replicas if not r.future)


def encode_describe_log_dirs(partitions: Mapping[str, Sequence[int]] | None, version: int) -> bytes:
    """The framed request (size prefix included) at ``version`` (0-4) for ``partitions`` of each topic, or
    every replica of the broker when ``partitions`` is None."""
    if not VERSIONS[0] <= version <= VERSIONS[1]:
        raise ValueError(f"kzc encodes DescribeLogDirs v{VERSIONS[0]}-v{VERSIONS[1]}, not v{version}")
    flexible = version >= _FIRST_FLEXIBLE
    out = Encoder(flexible)
    if partitions is None:
        out.null_array()
    else:
        out.array(list(partitions.items()), lambda e, item: e.string(item[0]).int32s(item[1]))
    return frame(DESCRIBE_LOG_DIRS.key, version, out.body(), flexible)


def decode_log_dirs(body: bytes, version: int = 0) -> tuple[LogDir, ...]:
    """Every log dir of a DescribeLogDirs response body at ``version``, in the broker's order.

    Raises:
        ValueError: not a DescribeLogDirs response of that version, or the broker refused the whole request
            (v3+: its top-level error code).
    """
    flexible = version >= _FIRST_FLEXIBLE
    d = Decoder(body, flexible)

    def partitions(topic: str, into: list[ReplicaLog]) -> None:
        for partition, size, lag, future in d.rows(_PARTITION) or ():
            into.append(ReplicaLog(topic, partition, size, lag, bool(future)))

    def log_dir(_: Decoder) -> LogDir:
        error = d.int16()
        path = d.string() or ""
        replicas: list[ReplicaLog] = []
        d.array(lambda _: partitions(d.string() or "", replicas))
        total = usable = None
        if version >= _FIRST_CAPACITY:
            total, usable = d.int64(), d.int64()
        # -1: the broker could not read the volume's figures (its default)
        return LogDir(path, error, tuple(replicas), _known(total), _known(usable))

    try:
        d.header()
        d.int32()  # throttle time
        error = d.int16() if version >= 3 else 0
        dirs = d.array(log_dir) or []
    except ValueError as exc:
        raise ValueError(f"not a DescribeLogDirs v{version} response: {exc}") from None
    if error:
        raise ValueError(f"the broker refused DescribeLogDirs: {ERROR_NAMES.get(error, f'error code {error}')}")
    return tuple(dirs)


def _known(value: int | None) -> int | None:
    return value if value is not None and value >= 0 else None


def replica_sizes(dirs: Iterable[LogDir]) -> dict[TopicPartition, int]:
    """(topic, partition) -> size in bytes, the largest over the online log dirs (future replicas and failed
    log dirs left out)."""
    sizes: dict[TopicPartition, int] = {}
    for d in dirs:
        if d.error:
            continue
        for r in d.replicas:
            if r.future:
                continue
            key = (r.topic, r.partition)
            known = sizes.get(key)
            if known is None or r.size > known:
                sizes[key] = r.size
    return sizes


def decode_describe_log_dirs(body: bytes, version: int = 0) -> dict[TopicPartition, int]:
    """(topic, partition) -> size in bytes (``replica_sizes`` of ``decode_log_dirs``).

    Raises:
        ValueError: as ``decode_log_dirs``.
    """
    return replica_sizes(decode_log_dirs(body, version))


def describe_log_dirs(
    host: str,
    port: int,
    partitions: Mapping[str, Sequence[int]] | None,
    timeout: float,
    who: str = "the broker",
    security: KafkaSecurity | None = None,
) -> tuple[LogDir, ...]:
    """Ask the broker at ``host:port`` for its log dirs and its replicas of ``partitions`` (None: all), at the
    version its ApiVersions allows (over TLS / after a SASL login when ``security`` says so).

    Raises:
        NoVersion: the broker has no DescribeLogDirs (before 1.0): nothing was sent.
        OSError: connection refused, closed or timed out. ValueError: an answer kzc cannot parse.
    """
    version, body = request(
        host,
        port,
        timeout,
        DESCRIBE_LOG_DIRS,
        VERSIONS,
        lambda v: encode_describe_log_dirs(partitions, v),
        who,
        security,
    )
    return decode_log_dirs(body, version)


def log_sizes(
    host: str,
    port: int,
    partitions: Mapping[str, Sequence[int]],
    timeout: float,
    who: str = "the broker",
    security: KafkaSecurity | None = None,
) -> dict[TopicPartition, int]:
    """The sizes of the broker's replicas of ``partitions`` (``replica_sizes`` of ``describe_log_dirs``).

    Raises:
        NoVersion, OSError, ValueError: as ``describe_log_dirs``.
    """
    return replica_sizes(describe_log_dirs(host, port, partitions, timeout, who, security))


# ---- one broker's log dirs, or why they are unknown ---------------------------------------------------


@dataclass(frozen=True)
class BrokerLogDirs:
    """One broker's log dirs as read at ``read_ms``, or ``dirs`` None with the reason (``unknown``): no
    DescribeLogDirs before Kafka 1.0, no PLAINTEXT listener, not answering. ``whole`` says every replica was
    asked (a null topic list), so a replica in no online dir is truly missing from it. ``stale`` marks the
    last good read kept when a later one failed (``core.snapshot.sizes.SizeBook``)."""

    broker: int
    read_ms: int
    dirs: tuple[LogDir, ...] | None = None
    unknown: str | None = None
    whole: bool = True
    stale: str | None = None  # these are the last good dirs (read at read_ms); why they could not be read since

    @property
    def offline_dirs(self) -> tuple[LogDir, ...]:
        """The dirs the broker marked offline (``KAFKA_STORAGE_ERROR``)."""
        return tuple(d for d in self.dirs or () if d.offline)

    @property
    def failed_dirs(self) -> tuple[LogDir, ...]:
        """Every dir with an error (offline ones included)."""
        return tuple(d for d in self.dirs or () if d.error)

    def sizes(self) -> dict[TopicPartition, int]:
        """Its replicas' sizes (``replica_sizes``); empty when unknown."""
        return replica_sizes(self.dirs or ())

    @property
    def total(self) -> int | None:
        """Bytes over its online dirs, None when unknown."""
        return None if self.dirs is None else sum(d.size for d in self.dirs if not d.error)

    def missing(self, hosted: Iterable[TopicPartition]) -> list[TopicPartition]:
        """Those of ``hosted`` (the replicas ZooKeeper assigns it) in none of its online dirs: on an offline
        dir, or lost. Empty when unknown."""
        if self.dirs is None:
            return []
        present = {r.key for d in self.dirs if not d.error for r in d.replicas if not r.future}
        return sorted(k for k in hosted if k not in present)

    def dir_of(self, key: TopicPartition) -> str | None:
        """The online dir holding the (non-future) replica ``key``."""
        for d in self.dirs or ():
            if not d.error and any(r.key == key and not r.future for r in d.replicas):
                return d.path
        return None


def read_broker_log_dirs(
    broker: int,
    endpoint: tuple[str, int] | None,
    partitions: Mapping[str, Sequence[int]] | None,
    timeout: float,
    now_ms: int,
    security: KafkaSecurity | None = None,
) -> BrokerLogDirs:
    """``describe_log_dirs`` of one broker, never raising: unknown with the reason instead.

    Args:
        endpoint: its (host, port) of the ``security`` protocol (``wire_endpoint``; PLAINTEXT without
            ``security``), None when it has none (or is not registered).
        partitions: the replicas to list (None: every one; ``{}``: none, only the dirs and their errors).
    """
    who = f"broker {broker}"
    if endpoint is None:
        return BrokerLogDirs(broker, now_ms, unknown=no_listener(DESCRIBE_LOG_DIRS, who, security))
    host, port = endpoint
    try:
        dirs = describe_log_dirs(host or "127.0.0.1", port, partitions, timeout, who, security)
    except NoVersion as exc:
        return BrokerLogDirs(broker, now_ms, unknown=str(exc))
    except (OSError, ValueError) as exc:
        return BrokerLogDirs(broker, now_ms, unknown=f"{who}: DescribeLogDirs to {host}:{port} failed: {exc}")
    return BrokerLogDirs(broker, now_ms, dirs, whole=partitions is None)


def read_log_dirs(
    endpoints: Mapping[int, tuple[str, int] | None],
    partitions: Mapping[int, Mapping[str, Sequence[int]] | None] | None,
    timeout: float,
    now_ms: int,
    parallel: int = 8,
    security: KafkaSecurity | None = None,
) -> dict[int, BrokerLogDirs]:
    """``read_broker_log_dirs`` of every broker of ``endpoints`` at once (``parallel`` sockets at a time).

    Args:
        partitions: per broker, what to list (see ``read_broker_log_dirs``); None: every replica of each.
    """
    if not endpoints:
        return {}

    def one(broker: int) -> BrokerLogDirs:
        wanted = None if partitions is None else partitions.get(broker)
        return read_broker_log_dirs(broker, endpoints[broker], wanted, timeout, now_ms, security)

    with ThreadPoolExecutor(max_workers=min(parallel, len(endpoints)), thread_name_prefix="kzc-logdirs") as pool:
        return dict(zip(endpoints, pool.map(one, endpoints), strict=True))
