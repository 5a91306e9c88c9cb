"""Loading a snapshot file into the DataFrames the Spark checks use (worker process only).

Spark reads the file written by ``core.snapshot.jsonl`` itself, with its explicit schema
(``SPARK_SCHEMA_DDL``) restricted to the fields the checks need, caches it once, and collects to the
driver only the handful of cluster-wide records (header, controller, controller epoch, brokers, broker
configs) whose values every partition row is compared with. With a stage directory the file is first
copied there (Hadoop FileSystem: ``file://``, ``hdfs://``, ``s3a://``) and converted to Parquet, so a
remote cluster's executors read it from storage they can reach.

Every pyspark import is inside a function.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlparse

from core.kafka.znodes import EntityConfig
from core.kafka.znodes.paths import CONFIG_CHANGES, ISR_CHANGE_NOTIFICATIONS, LOG_DIR_EVENT_NOTIFICATIONS
from core.snapshot.jsonl.schema import FIELD_TYPES

DataFrame = Any

# The snapshot fields the checks read (the schema of every other field is left out, so Spark's JSON
# reader does not materialise them).
NEEDED = (
    "kind", "path", "readable", "problem", "ctime_ms", "taken_at_ms", "partition_count", "broker_id",
    "kraft_controller_epoch", "controller_epoch", "version", "endpoints", "rack", "listener_security_protocol_map",
    "feature_max_versions", "topic", "partition", "in_assignment", "replicas", "adding", "removing", "state_present",
    "leader", "isr", "entity_type", "entity_name", "config", "notification_type", "entry_count",
)  # fmt: skip

# What the partition rows need (read apart from the rest, see load_frames).
PARTITION_FIELDS = (
    "kind", "topic", "partition", "in_assignment", "replicas", "adding", "removing", "state_present", "readable",
    "leader", "isr", "controller_epoch",
)  # fmt: skip

SERVED_SCHEMA = "kind STRING, broker INT, topic STRING, partition INT, leader INT, replicas ARRAY<INT>, isr ARRAY<INT>"

NOTIFICATION_PARENTS = {
    "isr_change": ISR_CHANGE_NOTIFICATIONS,
    "log_dir_event": LOG_DIR_EVENT_NOTIFICATIONS,
    "config_change": CONFIG_CHANGES,
}


@dataclass
class Facts:
    """Cluster-wide values collected to the driver and inlined into the per-row expressions."""

    taken_at_ms: int
    partition_count: int
    live: frozenset[int]  # registered, plus the brokers running KRaft during a migration (kraft_broker records)
    racks: dict[int, str | None]  # readable registrations only
    controller_missing: bool
    controller_id: int | None
    controller_is_kraft: bool
    controller_epoch: int | None
    broker_configs: dict[str, EntityConfig]  # readable /config/brokers/<id or <default>>
    served_brokers: frozenset[int] | None = None
    cluster_id_reason: str | None = None  # why /cluster/id cannot serve (missing, unreadable), None when it can
    registered: frozenset[int] = frozenset()  # /brokers/ids
    delegation_tokens: int | None = None  # the children of /delegation_token/tokens (None: absent or unreadable)
    delegation_tokens_reason: str | None = None  # why /delegation_token/tokens could not be counted

    @property
    def racks_complete(self) -> bool:
        """Every registered broker has a readable registration with a rack."""
        with_rack = [b for b, r in self.racks.items() if r is not None]
        return bool(with_rack) and len(with_rack) == len(self.registered)

    @property
    def rack_count(self) -> int:
        """Distinct racks among readable registrations."""
        return len({r for r in self.racks.values() if r is not None})


@dataclass
class Frames:
    """The snapshot as DataFrames (see the column lists) plus the driver-side ``Facts``."""

    facts: Facts
    parts: (
        DataFrame  # topic, partition, assigned, replicas, adding, removing, state, leader, isr, state_controller_epoch
    )
    topics: DataFrame  # topic, readable, partition_count
    topic_configs: DataFrame  # topic, min_isr (string or null)
    markers: DataFrame  # topic, ctime_ms
    requests: DataFrame  # topic, partition, replicas, idx (file order)
    notes: DataFrame  # parent, ctime_ms
    unreadable: DataFrame  # path, reason
    brokers: DataFrame  # broker, readable, reason, version, rack, has_protocol_map, has_features, endpoints
    one_row: DataFrame
    served_parts: DataFrame | None = None  # topic, partition, leader, replicas, isr
    served_topics: DataFrame | None = None  # topic
    cache: bool = True  # whether frames read more than once are cached (not for small inputs)
    cached: list[DataFrame] = field(default_factory=list)

    def kept(self, df: DataFrame) -> DataFrame:
        """``df`` cached till ``release`` (as it is without ``cache``)."""
        if not self.cache:
            return df
        df = df.cache()
        self.cached.append(df)
        return df

    @property
    def partition_count(self) -> int:
        """Partitions of every readable assignment (the header's count)."""
        return self.facts.partition_count

    def release(self) -> None:
        """Drop the cached input."""
        for df in self.cached:
            df.unpersist()


STEP_STAGE = "copying the snapshot to the stage directory"
STEP_PARQUET = "converting the snapshot to Parquet"
STEP_READ = "reading the snapshot"
STEP_SERVED = "reading the brokers' metadata"


def load_steps(staged: bool, served: bool) -> tuple[str, ...]:
    """The steps ``load_frames`` takes, in order, as progress labels (the worker reports them as it goes; the
    pipeline counts them into its ``load`` bar before the worker starts)."""
    return (*((STEP_STAGE, STEP_PARQUET) if staged else ()), STEP_READ, *((STEP_SERVED,) if served else ()))


def load_frames(
    spark: Any,
    inputs: Sequence[tuple[str, str | None]],
    stage_dir: str | None,
    on_step: Callable[[int, str], None] | None = None,
    cache: bool = True,
) -> list[Frames]:
    """Read each ``(snapshot, served)`` of ``inputs`` (one per cluster) into its ``Frames``; the records other
    than partitions are cached. The clusters' facts are collected to the driver in one Spark action (their
    small records tagged with the cluster's index, unioned), so N clusters cost the load one action, not N.

    ``on_step`` hears (steps done, the step starting) as each of ``load_steps`` starts (once for all inputs).
    Without ``cache`` nothing is cached (small inputs: reading them again costs less than Spark's matching
    of every plan against every cached one, which grew with the clusters of a job).

    Raises:
        ValueError: a file is not a kzc snapshot of a version this kzc reads.
    """
    from pyspark.sql import functions as F

    from core.snapshot.jsonl.schema import FORMAT_NAME
    from core.snapshot.model import READABLE_FORMAT_VERSIONS

    steps = load_steps(bool(stage_dir), any(served for _, served in inputs))

    def step(label: str) -> None:
        if on_step is not None:
            on_step(steps.index(label), label)

    sources = [_local_uri(snapshot) for snapshot, _ in inputs]
    parquets: list[str | None] = [None] * len(inputs)
    if stage_dir:
        step(STEP_STAGE)
        sources = [_stage(spark, source, stage_dir) for source in sources]
        # Converted to Parquet once (with the file order): the reads below then read columns.
        step(STEP_PARQUET)
        parquets = [f"{stage_dir.rstrip('/')}/kzc-check-{uuid.uuid4().hex}.parquet" for _ in sources]
        for source, parquet in zip(sources, parquets, strict=True):
            _with_line_order(_read_json(spark, source, (*NEEDED, "format"))).write.parquet(parquet)
    step(STEP_READ)
    reads = [_reader(spark, source, parquet) for source, parquet in zip(sources, parquets, strict=True)]
    kind = F.col("kind")
    # The file is read twice, each time for the fields one side needs: tokenising it again costs less
    # than caching a copy of every partition record next to the partition pass's own cached rows. The
    # cached side holds every record but the readable partitions: brokers, topics, configs, admin znodes
    # and unreadable znodes, a small fraction of the file.
    kept = (kind != "partition") | (F.col("readable") == F.lit(False))
    raws = [read((*NEEDED, "format"), kept, ordered=True) for read in reads]
    raws = [raw.cache() for raw in raws] if cache else raws
    wanted = kind.isin("header", "controller", "controller_epoch", "broker", "config", "cluster_id", "kraft_broker",
                       "delegation_tokens") & ((kind != "config") | (F.col("entity_type") == "brokers"))  # fmt: skip
    tagged = [raw.where(wanted).select(F.lit(index).alias("cluster"), "*") for index, raw in enumerate(raws)]
    small: list[list[Any]] = [[] for _ in inputs]
    for row in union_all(tagged).collect():
        small[row["cluster"]].append(row)
    frames = [
        _frames(spark, raw, read, _facts(rows, FORMAT_NAME, READABLE_FORMAT_VERSIONS), cache)
        for raw, read, rows in zip(raws, reads, small, strict=True)
    ]
    if any(served for _, served in inputs):
        step(STEP_SERVED)
    for one, (_, served) in zip(frames, inputs, strict=True):
        if served:
            _add_served(spark, one, served, stage_dir)
    return frames


def union_all(frames: Sequence[DataFrame]) -> DataFrame:
    """The rows of every frame (same columns by name), unioned as a balanced tree: a chain of N unions has
    Spark analyse a plan N deep N times, a tree log N deep."""
    level = list(frames)
    while len(level) > 1:
        paired = [a.unionByName(b) for a, b in zip(level[::2], level[1::2], strict=False)]
        level = paired + ([level[-1]] if len(level) % 2 else [])
    return level[0]


Read = Callable[..., DataFrame]


def _reader(spark: Any, source: str, parquet: str | None) -> Read:
    """How one snapshot's records of some fields are read: ``read(fields, where, ordered=False)``."""

    def read(fields: tuple[str, ...], where: Any, ordered: bool = False) -> DataFrame:
        # The filter comes first: Spark's JSON reader applies it while parsing a line, so it skips the
        # rest of every line whose kind (its first field) is not wanted.
        order = ("line_order",) if ordered else ()
        if parquet is not None:
            return spark.read.parquet(parquet).where(where).select(*fields, *order)
        df = _read_json(spark, source, fields).where(where)
        return _with_line_order(df) if ordered else df

    return read


def _frames(spark: Any, raw: DataFrame, read: Read, facts: Facts, cache: bool) -> Frames:
    """One cluster's ``Frames`` over its cached small records ``raw`` and its partition records."""
    from pyspark.sql import functions as F

    kind = F.col("kind")
    c = F.col
    empty_ints = F.array().cast("array<int>")
    parts = read(PARTITION_FIELDS, kind == "partition").select(
        "topic",
        "partition",
        c("in_assignment").alias("assigned"),
        "replicas",
        F.coalesce(c("adding"), empty_ints).alias("adding"),
        F.coalesce(c("removing"), empty_ints).alias("removing"),
        F.when(c("state_present") & (c("readable") == F.lit(False)), F.lit("unreadable"))
        .when(c("state_present"), F.lit("ok"))
        .otherwise(F.lit("missing"))
        .alias("state"),
        "leader",
        "isr",
        c("controller_epoch").alias("state_controller_epoch"),
    )
    topics = raw.where(kind == "topic").select(
        "topic", F.coalesce(c("readable"), F.lit(True)).alias("readable"), c("partition_count").cast("int")
    )
    topic_configs = raw.where((kind == "config") & (c("entity_type") == "topics")).select(
        c("entity_name").alias("topic"),
        F.when(c("readable") != F.lit(False), F.element_at("config", F.lit("min.insync.replicas"))).alias("min_isr"),
    )
    markers = raw.where(kind == "deletion_marker").select("topic", "ctime_ms")
    requests = raw.where(kind == "reassignment_entry").select(
        "topic", "partition", "replicas", c("line_order").alias("idx")
    )
    parent = F.create_map(*[x for k, v in NOTIFICATION_PARENTS.items() for x in (F.lit(k), F.lit(v))])
    notes = raw.where(kind == "notification").select(
        F.element_at(parent, c("notification_type")).alias("parent"), "ctime_ms"
    )
    inline = raw.where((c("readable") == F.lit(False)) & (kind != "broker")).select(
        "path", c("problem").alias("reason")
    )
    listed = raw.where(kind == "unreadable").select("path", c("problem").alias("reason"))
    endpoint = r"^.*?://(.*):(-?[0-9]+)\z"
    brokers = raw.where(kind == "broker").select(
        c("broker_id").alias("broker"),
        (c("readable") != F.lit(False)).alias("readable"),
        c("problem").alias("reason"),
        "version",
        "rack",
        c("listener_security_protocol_map").isNotNull().alias("has_protocol_map"),
        c("feature_max_versions").isNotNull().alias("has_features"),
        F.transform(
            F.coalesce(c("endpoints"), F.array().cast("array<string>")),
            lambda e: F.concat(
                F.regexp_replace(F.regexp_extract(e, endpoint, 1), r"^\[(.*)\]\z", "$1"),
                F.lit(":"),
                F.regexp_extract(e, endpoint, 2),
            ),
        ).alias("endpoints"),
    )
    return Frames(
        facts=facts,
        parts=parts,
        topics=topics,
        topic_configs=topic_configs,
        markers=markers,
        requests=requests,
        notes=notes,
        unreadable=inline.unionByName(listed),
        brokers=brokers,
        one_row=spark.range(1),
        cache=cache,
        cached=[raw] if cache else [],
    )


def _add_served(spark: Any, frames: Frames, served: str, stage_dir: str | None) -> None:
    """The brokers' metadata in ``served`` added to ``frames`` (cached; the served broker ids collected)."""
    from pyspark.sql import functions as F

    c = F.col
    source = _local_uri(served) if not stage_dir else _stage(spark, _local_uri(served), stage_dir)
    served_raw = frames.kept(spark.read.schema(SERVED_SCHEMA).json(source))
    frames.facts.served_brokers = frozenset(
        r[0] for r in served_raw.where(c("kind") == "served_broker").select("broker").collect()
    )
    frames.served_topics = served_raw.where(c("kind") == "served_topic").select("topic")
    frames.served_parts = served_raw.where(c("kind") == "served_partition").select(
        "topic", "partition", "leader", "replicas", "isr"
    )


def _read_json(spark: Any, source: str, fields: tuple[str, ...]) -> DataFrame:
    """The snapshot file as records of ``fields`` (``core.snapshot.jsonl``'s types); a bad line fails the job."""
    schema = ", ".join(f"{name} {FIELD_TYPES[name]}" for name in fields)
    return spark.read.schema(schema).option("mode", "FAILFAST").json(source)


def _with_line_order(df: DataFrame) -> DataFrame:
    """``df`` with ``line_order``, the file order, for "the last entry wins" in /admin/reassign_partitions
    (Spark may read splits out of order)."""
    from pyspark.sql import functions as F

    return df.withColumn(
        "line_order",
        F.struct(F.col("_metadata.file_block_start").alias("block"), F.monotonically_increasing_id().alias("seq")),
    )


def _facts(rows: list[Any], format_name: str, format_versions: tuple[int, ...]) -> Facts:
    header = next((r for r in rows if r["kind"] == "header"), None)
    if header is None or header["format"] != format_name:
        raise ValueError("not a kzc snapshot file (no header record)")
    if header["version"] not in format_versions:
        readable = " and ".join(map(str, format_versions))
        raise ValueError(f"kzc snapshot format version {header['version']}; this kzc reads versions {readable}")
    controller = next((r for r in rows if r["kind"] == "controller"), None)
    cluster_id = next((r for r in rows if r["kind"] == "cluster_id"), None)
    epoch = next((r for r in rows if r["kind"] == "controller_epoch"), None)
    brokers = [r for r in rows if r["kind"] == "broker"]
    registered = frozenset(int(r["broker_id"]) for r in brokers)
    kraft = frozenset(int(r["broker_id"]) for r in rows if r["kind"] == "kraft_broker")
    tokens = next((r for r in rows if r["kind"] == "delegation_tokens"), None)
    tokens_unreadable = tokens is not None and tokens["readable"] is False
    configs = {
        str(r["entity_name"]): EntityConfig(int(r["version"] or 0), tuple(sorted((r["config"] or {}).items())))
        for r in rows
        if r["kind"] == "config" and r["readable"] is not False
    }
    readable_controller = controller is not None and controller["readable"] is not False
    kraft_epoch = controller["kraft_controller_epoch"] if controller is not None and readable_controller else None
    return Facts(
        taken_at_ms=int(header["taken_at_ms"]),
        partition_count=int(header["partition_count"] or 0),
        live=registered | kraft,
        registered=registered,
        delegation_tokens=None if tokens is None or tokens_unreadable else int(tokens["entry_count"] or 0),
        delegation_tokens_reason=tokens["problem"] if tokens is not None and tokens_unreadable else None,
        racks={int(r["broker_id"]): r["rack"] for r in brokers if r["readable"] is not False},
        controller_missing=controller is None,
        controller_id=int(controller["broker_id"]) if controller is not None and readable_controller else None,
        controller_is_kraft=kraft_epoch is not None and kraft_epoch >= 0,
        controller_epoch=(
            int(epoch["controller_epoch"])
            if epoch is not None and epoch["readable"] is not False and epoch["controller_epoch"] is not None
            else None
        ),
        broker_configs=configs,
        cluster_id_reason=(
            "missing"
            if cluster_id is None
            else f"unreadable ({cluster_id['problem']})"
            if cluster_id["readable"] is False
            else None
        ),
    )


def _local_uri(path: str) -> str:
    """A plain local path as a ``file://`` URI (URIs are kept as they are)."""
    return path if "://" in path else f"file://{path}"


def _stage(spark: Any, source: str, stage_dir: str) -> str:
    """Copy ``source`` into ``stage_dir`` through Hadoop's FileSystem; return the staged URI."""
    name = source.rstrip("/").rsplit("/", 1)[-1]
    target = f"{stage_dir.rstrip('/')}/kzc-{uuid.uuid4().hex}-{name}"
    if type(spark).__module__.startswith("pyspark.sql.connect"):
        # Spark Connect uploads to the server's default file system and takes a path without a scheme
        # there (the server must allow local destinations when that file system is local).
        target = urlparse(target).path
        spark.copyFromLocalToFs(source.removeprefix("file://"), target)
        return target
    jvm = spark.sparkContext._jvm
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    src = jvm.org.apache.hadoop.fs.Path(source)
    dst = jvm.org.apache.hadoop.fs.Path(target)
    dst.getFileSystem(conf).copyFromLocalFile(False, True, src, dst)
    return target
