"""The history store: atomic files only, temporary files ignored and cleaned, one recorder per cluster,
retention by whole hours, compaction of closed hours without losing or doubling a row."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.errors import UsageError
from core.history.schema import EVENTS, HOUR_MS, PARTITION
from core.history.store import HistoryStore, StoreError

HOUR = 1_800_000_000_000 - 1_800_000_000_000 % HOUR_MS


def rows(ts: int, count: int) -> list[dict[str, object]]:
    return [
        {"ts_ms": ts + i, "seq": i, "kind": PARTITION, "topic": "a", "partition": i, "isr": [1]} for i in range(count)
    ]


def test_rows_land_in_hive_style_hour_directories_and_read_back(tmp_path: Path) -> None:
    store = HistoryStore.create(tmp_path)
    written = store.append(EVENTS, "ctx one", rows(HOUR + HOUR_MS - 1, 2))
    assert [p.parent.name for p in written] == ["hour=2027-01-15T08", "hour=2027-01-15T09"]
    assert written[0].parent.parent.name == "cluster=ctx_one"
    assert store.read(EVENTS, "ctx one").num_rows == 2
    assert store.clusters() == ["ctx_one"]


def test_a_temporary_file_left_by_a_crash_is_never_read_and_is_cleaned_at_the_next_start(tmp_path: Path) -> None:
    store = HistoryStore.create(tmp_path)
    [good] = store.append(EVENTS, "c", rows(HOUR, 3))
    (good.parent / ".part-torn.parquet.tmp").write_bytes(b"PAR1 half a file")
    assert store.files(EVENTS, "c") == [good]
    assert store.read(EVENTS, "c").num_rows == 3
    with store.recording("c"):
        assert not (good.parent / ".part-torn.parquet.tmp").exists()


def test_a_second_recorder_of_the_same_cluster_is_refused(tmp_path: Path) -> None:
    store = HistoryStore.create(tmp_path)
    with (
        store.recording("c"),
        pytest.raises(StoreError, match="another kzc record"),
        HistoryStore(tmp_path).recording("c"),
    ):
        pass


def test_retention_deletes_whole_hours_older_than_kept(tmp_path: Path) -> None:
    store = HistoryStore.create(tmp_path)
    store.append(EVENTS, "c", rows(HOUR, 1) + rows(HOUR + 5 * HOUR_MS, 1))
    deleted = store.retain("c", keep_ms=2 * HOUR_MS, now_ms=HOUR + 5 * HOUR_MS + 10)
    assert deleted == ["events/2027-01-15T08"]
    assert store.read(EVENTS, "c").column("ts_ms").to_pylist() == [HOUR + 5 * HOUR_MS]


def test_compaction_merges_a_closed_hour_into_one_file_with_every_row_once(tmp_path: Path) -> None:
    store = HistoryStore.create(tmp_path)
    for i in range(3):
        store.append(EVENTS, "c", rows(HOUR + i * 1000, 2))
    assert store.compact("c", now_ms=HOUR + 30 * 60_000) == 0  # the hour is still open
    assert store.compact("c", now_ms=HOUR + 2 * HOUR_MS) == 1
    [only] = store.files(EVENTS, "c")
    assert only.name.startswith("compact-")
    assert sorted(store.read(EVENTS, "c").column("ts_ms").to_pylist()) == sorted(
        HOUR + i * 1000 + j for i in range(3) for j in range(2)
    )


def test_a_part_left_beside_a_finished_compaction_is_not_read_twice(tmp_path: Path) -> None:
    store = HistoryStore.create(tmp_path)
    store.append(EVENTS, "c", rows(HOUR, 2))
    [second] = store.append(EVENTS, "c", rows(HOUR + 1000, 2))
    copy = second.read_bytes()
    store.compact("c", now_ms=HOUR + 2 * HOUR_MS)
    second.write_bytes(copy)  # a crash between the compacted file's rename and the parts' removal
    assert store.read(EVENTS, "c").num_rows == 4
    store.clean("c")
    assert not second.exists()


def test_a_directory_that_is_not_a_store_is_refused(tmp_path: Path) -> None:
    (tmp_path / "x.txt").write_text("mine")
    with pytest.raises(StoreError, match="not a kzc history store"):
        HistoryStore.create(tmp_path)
    with pytest.raises(UsageError, match="not a kzc history store"):
        HistoryStore.open(tmp_path / "nothing")
