"""The history store on disk: crash-safe appends, the files a question reads, gaps, retention, compaction.

Every flush is a new Parquet file, written under a name starting with ``.`` (Spark, Hadoop and pyarrow skip
those) and renamed into place once complete and synced, so a kill -9 leaves either the whole file or a
temporary one that ``clean`` removes at the next start. Nothing is ever rewritten in place: compaction
writes one ``compact-<hour>.parquet`` for a closed hour, and from the moment it exists it alone stands for
its directory (``files`` lists only it; ``clean`` removes the parts it replaced if a crash left them).

``<store>/_recorder/<cluster>.json`` holds the last moment each recorder flushed (its restart records the gap
since then) and ``<store>/_recorder/<cluster>.lock`` keeps a second recorder of the same cluster out.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from core.errors import KzcError, UsageError
from core.history.schema import (
    GAPS,
    HOUR_MS,
    SCHEMAS,
    STORE_FORMAT,
    STORE_VERSION,
    TABLES,
    Row,
    cluster_key,
    hour_of,
    hour_start_ms,
    table_of,
)

MARKER = "kzc-history.json"
_COMPACTED = "compact-"
_CLOSED_AFTER_MS = 5 * 60_000  # an hour is closed (no flush writes to it any more) this long after its end


class StoreError(KzcError):
    """The history store cannot be used (not a store, another version, locked by another recorder)."""


@dataclass(frozen=True, slots=True)
class Gap:
    """A stretch of time the store knows nothing about, and why."""

    from_ms: int
    to_ms: int
    reason: str

    def to_json(self) -> dict[str, object]:
        return {"from_ms": self.from_ms, "to_ms": self.to_ms, "reason": self.reason}


class HistoryStore:
    """One store directory (``kzc record --out DIR``); every cluster recorded into it is a ``cluster=`` dir."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._seq = 0

    # ---- opening -------------------------------------------------------------------------------------

    @classmethod
    def create(cls, root: Path) -> HistoryStore:
        """Open ``root`` for recording, making it a store if it is empty or absent.

        Raises:
            StoreError: ``root`` holds something else, or a store of another version.
        """
        root.mkdir(parents=True, exist_ok=True)
        marker = root / MARKER
        if not marker.exists():
            if any(p for p in root.iterdir() if not p.name.startswith(".")):
                raise StoreError(f"{root} is not empty and not a kzc history store: give an empty directory")
            _atomic_write(marker, json.dumps({"format": STORE_FORMAT, "version": STORE_VERSION}).encode())
        return cls.open(root)

    @classmethod
    def open(cls, root: Path) -> HistoryStore:
        """Open an existing store for reading.

        Raises:
            UsageError: ``root`` is not a store (no marker file).
            StoreError: a store of another version.
        """
        marker = root / MARKER
        try:
            meta = json.loads(marker.read_text())
        except FileNotFoundError:
            raise UsageError(f"{root} is not a kzc history store (no {MARKER}): record one with kzc record") from None
        except (OSError, ValueError) as exc:
            raise StoreError(f"{marker} is unreadable: {exc}") from None
        if meta.get("format") != STORE_FORMAT or meta.get("version") != STORE_VERSION:
            raise StoreError(
                f"{root} holds history format {meta.get('format')} version {meta.get('version')}; "
                f"this kzc reads {STORE_FORMAT} version {STORE_VERSION}"
            )
        return cls(root)

    def clusters(self) -> list[str]:
        """The clusters the store holds (their directory names), sorted."""
        found: set[str] = set()
        for table in TABLES:
            base = self.root / table
            if base.is_dir():
                found.update(p.name.removeprefix("cluster=") for p in base.glob("cluster=*"))
        return sorted(found)

    # ---- writing -------------------------------------------------------------------------------------

    @contextlib.contextmanager
    def recording(self, cluster: str) -> Iterator[None]:
        """Hold the cluster's recorder lock (one recorder per cluster and store) and clean what a crash left.

        Raises:
            StoreError: another recorder holds it.
        """
        lock_path = self._recorder_dir() / f"{cluster_key(cluster)}.lock"
        with lock_path.open("a") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise StoreError(f"another kzc record is recording cluster {cluster} into {self.root}") from None
            try:
                self.clean(cluster)
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def append(self, table: str, cluster: str, rows: list[Row], ts_column: str = "ts_ms") -> list[Path]:
        """Write ``rows`` as new files, one per hour they fall in; each appears whole or not at all."""
        return self.append_table(table, cluster, table_of(table, rows), ts_column)

    def append_table(self, table: str, cluster: str, data: pa.Table, ts_column: str = "ts_ms") -> list[Path]:
        """``append`` for rows already in a pyarrow table of ``table``'s schema."""
        if data.num_rows == 0:
            return []
        hours = pc.divide(data.column(ts_column), pa.scalar(HOUR_MS, pa.int64()))
        written = []
        for hour_index in sorted(set(hours.to_pylist())):
            chunk = data.filter(pc.equal(hours, hour_index))
            first = int(pc.min(chunk.column(ts_column)).as_py())
            directory = self._hour_dir(table, cluster, hour_of(first))
            directory.mkdir(parents=True, exist_ok=True)
            self._seq += 1
            path = directory / f"part-{first}-{os.getpid()}-{self._seq}.parquet"
            write_table(path, chunk)
            written.append(path)
        return written

    def record_gap(self, cluster: str, gap: Gap) -> None:
        """Add ``gap`` to the ``gaps`` table."""
        self.append(GAPS, cluster, [gap.to_json()], ts_column="from_ms")

    def flushed_ms(self, cluster: str) -> int | None:
        """The last moment a recorder of ``cluster`` flushed everything it had seen (None: never)."""
        with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
            return int(json.loads((self._recorder_dir() / f"{cluster_key(cluster)}.json").read_text())["flushed_ms"])
        return None

    def set_flushed(self, cluster: str, ms: int) -> None:
        """Note that everything ``cluster``'s recorder saw up to ``ms`` is on disk."""
        _atomic_write(self._recorder_dir() / f"{cluster_key(cluster)}.json", json.dumps({"flushed_ms": ms}).encode())

    def clean(self, cluster: str) -> int:
        """Remove the temporary files a crash left and the parts a finished compaction replaced; the count."""
        removed = 0
        for table in TABLES:
            for directory in self._hour_dirs(table, cluster):
                names = os.listdir(directory)
                compacted = any(n.startswith(_COMPACTED) for n in names)
                for name in names:
                    if name.startswith(".") or (compacted and not name.startswith(_COMPACTED)):
                        (directory / name).unlink(missing_ok=True)
                        removed += 1
            for stale in (self.root / table / f"cluster={cluster_key(cluster)}").glob(".deleting-*"):
                shutil.rmtree(stale, ignore_errors=True)
        return removed

    def retain(self, cluster: str, keep_ms: int, now_ms: int | None = None) -> list[str]:
        """Delete every hour directory that ended more than ``keep_ms`` ago; the hours deleted."""
        cutoff = (now_ms if now_ms is not None else _now_ms()) - keep_ms
        deleted = []
        for table in TABLES:
            for directory in self._hour_dirs(table, cluster):
                hour = directory.name.removeprefix("hour=")
                if hour_start_ms(hour) + HOUR_MS <= cutoff:
                    # Renamed first so a reader never sees half a directory.
                    doomed = directory.with_name(f".deleting-{directory.name}")
                    directory.rename(doomed)
                    shutil.rmtree(doomed, ignore_errors=True)
                    deleted.append(f"{table}/{hour}")
        return deleted

    def compact(self, cluster: str, now_ms: int | None = None) -> int:
        """Merge the files of each closed hour into one ``compact-<hour>.parquet``; the hours compacted."""
        now = now_ms if now_ms is not None else _now_ms()
        done = 0
        for table in TABLES:
            for directory in self._hour_dirs(table, cluster):
                hour = directory.name.removeprefix("hour=")
                if hour_start_ms(hour) + HOUR_MS + _CLOSED_AFTER_MS > now:
                    continue
                parts = sorted(p for p in directory.glob("*.parquet") if not p.name.startswith("."))
                if len(parts) < 2 or any(p.name.startswith(_COMPACTED) for p in parts):
                    continue
                merged = pa.concat_tables([pq.read_table(p, schema=SCHEMAS[table]) for p in parts])
                sort = [("ts_ms", "ascending"), ("seq", "ascending")] if "ts_ms" in merged.column_names else []
                write_table(directory / f"{_COMPACTED}{hour}.parquet", merged.sort_by(sort) if sort else merged)
                for part in parts:
                    part.unlink(missing_ok=True)
                done += 1
        return done

    # ---- reading -------------------------------------------------------------------------------------

    def files(self, table: str, cluster: str, from_ms: int | None = None, to_ms: int | None = None) -> list[Path]:
        """The complete files of ``table`` for ``cluster`` whose hour overlaps [from_ms, to_ms], oldest first."""
        found: list[Path] = []
        for directory in self._hour_dirs(table, cluster):
            start = hour_start_ms(directory.name.removeprefix("hour="))
            if (from_ms is not None and start + HOUR_MS <= from_ms) or (to_ms is not None and start > to_ms):
                continue
            names = sorted(n for n in os.listdir(directory) if n.endswith(".parquet") and not n.startswith("."))
            compacted = [n for n in names if n.startswith(_COMPACTED)]
            found.extend(directory / n for n in (compacted or names))
        return found

    def hours(self, table: str, cluster: str) -> list[str]:
        """The hour directories of ``table`` for ``cluster``, oldest first."""
        return [d.name.removeprefix("hour=") for d in self._hour_dirs(table, cluster)]

    def read(self, table: str, cluster: str, from_ms: int | None = None, to_ms: int | None = None) -> pa.Table:
        """Every row of ``table`` in the files ``files`` lists (the hours, not yet the rows, are filtered)."""
        paths = self.files(table, cluster, from_ms, to_ms)
        schema = SCHEMAS[table]
        if not paths:
            return schema.empty_table()
        return pa.concat_tables([pq.read_table(p, schema=schema) for p in paths])

    def gaps(self, cluster: str) -> list[Gap]:
        """Every recorded gap of ``cluster``, oldest first."""
        table = self.read(GAPS, cluster)
        gaps = [Gap(int(r["from_ms"]), int(r["to_ms"]), str(r["reason"])) for r in table.to_pylist()]
        return sorted(gaps, key=lambda g: (g.from_ms, g.to_ms))

    # ---- layout --------------------------------------------------------------------------------------

    def _recorder_dir(self) -> Path:
        directory = self.root / "_recorder"
        directory.mkdir(parents=True, exist_ok=True)
        return directory

    def _hour_dir(self, table: str, cluster: str, hour: str) -> Path:
        return self.root / table / f"cluster={cluster_key(cluster)}" / f"hour={hour}"

    def _hour_dirs(self, table: str, cluster: str) -> list[Path]:
        base = self.root / table / f"cluster={cluster_key(cluster)}"
        if not base.is_dir():
            return []
        dirs = []
        for directory in base.glob("hour=*"):
            try:
                hour_start_ms(directory.name.removeprefix("hour="))
            except ValueError:
                continue  # not ours: never read, never deleted
            dirs.append(directory)
        return sorted(dirs)


def write_table(path: Path, table: pa.Table) -> None:
    """Write ``table`` to ``path`` whole or not at all: a hidden temporary file, synced, then renamed."""
    temporary = path.with_name(f".{path.name}.tmp")
    pq.write_table(table, temporary, compression="zstd")
    _sync(temporary)
    os.replace(temporary, path)
    _sync_dir(path.parent)


def _atomic_write(path: Path, data: bytes) -> None:
    temporary = path.with_name(f".{path.name}.tmp")
    with temporary.open("wb") as handle:
        handle.write(data)
        _flush(handle)
    os.replace(temporary, path)
    _sync_dir(path.parent)


def _flush(handle: IO[bytes]) -> None:
    handle.flush()
    os.fsync(handle.fileno())


def _sync(path: Path) -> None:
    with path.open("rb") as handle:
        os.fsync(handle.fileno())


def _sync_dir(path: Path) -> None:
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _now_ms() -> int:
    return int(time.time() * 1000)
