"""The console at a recorded moment (``kzc --at``, ``core.console.moment``) on a store the test writes: broker 2
down for two minutes (``core.testdata.history.write_outage``). The status line says the moment in place of the
live marks, ``[``/``]`` step through the recorded changes, ``{``/``}`` by a minute, a moment the store does not
know shows no cluster and says why, and every mutation is refused as a recorded moment."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Label

from core.config import ConnectionSettings, UserConfig
from core.console.moment import MomentBackend
from core.history.store import HistoryStore
from core.snapshot.health import under_replicated_partitions
from core.testdata import builder as b
from core.testdata.history import write_outage
from tests.recorded_backend import RecordedBackend
from tests.tui.helpers import settle
from tui.app import KzcApp
from tui.messages import CreateTopicRequested, DeleteTopicsRequested
from tui.screens import groups as groups_screen
from tui.screens.cluster import ClusterScreen
from tui.screens.groups import GroupsScreen
from tui.screens.help import HelpScreen
from tui.screens.timeline import TimelineScreen
from tui.widgets.text_line import TextLine
from tui.widgets.virtual_table import VirtualTable

T0 = 1_764_300_000_000  # 2025-11-28 03:20:00 UTC; broker 2 leaves at 03:21:00 and comes back at 03:23:00


def _app(tmp_path: Path, at_ms: int) -> tuple[KzcApp, MomentBackend]:
    write_outage(tmp_path / "store", "prod", T0)
    backend = MomentBackend(HistoryStore.open(tmp_path / "store"), "prod", at_ms)
    app = KzcApp(
        ConnectionSettings(context="prod"), config=UserConfig(), backend=backend, clock=lambda: (T0 + 3_600_000) / 1000
    )
    return app, backend


def _shown(app: KzcApp) -> tuple[str, str, str, str]:
    """The status line's state and right-hand part, the under-replicated counter and the totals."""
    screen = app.screen
    assert isinstance(screen, ClusterScreen)
    return (
        str(screen.query_one("#status-zk", Label).content),
        screen.query_one("#status-last", TextLine).text,
        str(screen.query_one("#health-under_replicated", Label).content),
        str(screen.query_one("#health-totals", Label).content),
    )


async def _press(app: KzcApp, pilot: Pilot[None], *keys: str) -> None:
    for key in keys:
        await pilot.press(key)
        await app.workers.wait_for_complete()
        await settle(pilot)


async def test_the_cluster_as_recorded_inside_the_outage_and_stepping_to_the_brokers_return(tmp_path: Path) -> None:
    app, backend = _app(tmp_path, T0 + 120_000)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        state, marker, urp, totals = _shown(app)
        assert (state, marker, urp) == ("RECORDED", "as of 03:22:00 (recorded)", "under-replicated 2")
        assert "3 partitions · 2 brokers" in totals
        await _press(app, pilot, "right_square_bracket")  # broker 2 registers; its ISRs not yet back
        assert _shown(app)[1:3] == ("as of 03:23:00 (recorded)", "under-replicated 2")
        assert "3 brokers" in _shown(app)[3]
        await _press(app, pilot, "right_square_bracket")  # back in the ISRs 5 s later
        assert _shown(app)[1:3] == ("as of 03:23:05 (recorded)", "under-replicated 0")
        await _press(app, pilot, "left_square_bracket", "left_square_bracket")  # the ISRs shrank at 03:21:00.100
        assert _shown(app)[1:3] == ("as of 03:21:00.100 (recorded)", "under-replicated 2")
        await _press(app, pilot, "left_square_bracket")  # broker 2 left, 100 ms before
        assert _shown(app)[1:3] == ("as of 03:21:00 (recorded)", "under-replicated 0")
        assert backend.moment.at_ms == T0 + 60_000
        await _press(app, pilot, "right_curly_bracket")
        assert _shown(app)[1:3] == ("as of 03:22:00 (recorded)", "under-replicated 2")
        await _press(app, pilot, "left_curly_bracket", "left_curly_bracket")
        assert _shown(app)[1:3] == ("as of 03:20:00 (recorded)", "under-replicated 0")
        assert backend.moment.at_ms == T0


def test_opening_a_moment_says_connected_before_any_view_so_no_reconnection_is_logged(tmp_path: Path) -> None:
    # Told of the snapshot first, the console could draw a view before it heard of the connection and log
    # "ZooKeeper connected" at a moment that has no ZooKeeper connection (a snapshot test caught it under load).
    _, backend = _app(tmp_path, T0 + 120_000)
    heard: list[str] = []
    backend.add_state_listener(lambda state: heard.append(state.name))
    backend.add_snapshot_listener(lambda: heard.append("snapshot"))
    backend.connect()
    assert heard == ["CONNECTED"]
    assert len(under_replicated_partitions(backend.snapshot())) == 2


async def test_before_the_recording_begins_the_moment_stays_and_it_says_so(tmp_path: Path) -> None:
    app, backend = _app(tmp_path, T0 + 30_000)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await _press(app, pilot, "left_curly_bracket")
        assert backend.moment.at_ms == T0 + 30_000
        assert _shown(app)[1] == "as of 03:20:30 (recorded)"
        assert any("before the recording of cluster prod begins" in str(n.message) for n in app._notifications)
        await _press(app, pilot, "left_square_bracket")
        assert any("no recorded change before" in str(n.message) for n in app._notifications)


async def test_after_the_recording_ends_nothing_is_made_up(tmp_path: Path) -> None:
    app, _ = _app(tmp_path, T0 + 400_000)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        _, marker, urp, totals = _shown(app)
        assert marker == "as of 03:26:40: after the recording ends (2025-11-28 03:25:00 UTC), nothing known"
        assert urp == "under-replicated 0" and "0 partitions · 0 brokers" in totals


async def test_every_mutation_is_refused_as_a_recorded_moment(tmp_path: Path) -> None:
    app, _ = _app(tmp_path, T0 + 120_000)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        app.post_message(CreateTopicRequested())
        app.post_message(DeleteTopicsRequested(topics=("orders",)))
        await settle(pilot)
        assert app.screen is screen
        said = [str(n.message) for n in app._notifications]
        assert "read-only mode: creating topics is not available (a recorded moment)" in said
        assert "read-only mode: deleting topics is not available (a recorded moment)" in said


async def test_the_palette_steps_and_jumps_to_a_typed_moment(tmp_path: Path) -> None:
    app, backend = _app(tmp_path, T0 + 120_000)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await _press(app, pilot, "colon", *"next change", "enter")
        assert backend.moment.at_ms == T0 + 180_000
        await _press(app, pilot, "colon", *"at 2025-11-28 03:20:30", "enter")
        assert backend.moment.at_ms == T0 + 30_000
        assert _shown(app)[1:3] == ("as of 03:20:30 (recorded)", "under-replicated 0")


async def test_the_timeline_shows_the_recorded_changes_around_the_moment_with_the_current_one_marked(
    tmp_path: Path,
) -> None:
    app, _ = _app(tmp_path, T0 + 120_000)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        await _press(app, pilot, "W")
        assert isinstance(app.screen, TimelineScreen)

        def current() -> list[str]:
            rows = app.screen.query_one("#timeline", VirtualTable).visible_rows()
            return [r.cells[0][:8] + " " + r.cells[1] for r in rows if r.cells[1].startswith("▶")]

        rows = app.screen.query_one("#timeline", VirtualTable).visible_rows()
        assert [r.cells[0][:8] for r in rows] == ["03:23:05", "03:23:00", "03:21:00"]  # newest first
        [marked] = current()
        assert marked.startswith("03:21:00 ▶ broker 2 left"), marked
        assert "▶ the moment shown, 2025-11-28 03:22:00 UTC" in str(app.screen.query_one("#timeline-title").render())
        limits = str(app.screen.query_one("#timeline-limits").render())  # the store's, not ZooKeeper's
        assert limits.startswith("Recorded by kzc record") and "ZooKeeper" not in limits, limits
        await _press(app, pilot, "right_square_bracket")
        [marked] = current()
        assert marked.startswith("03:23:00 ▶ ") and "broker 2" in marked, marked


async def test_e_on_the_timeline_exports_the_report_of_the_window_around_the_moment(tmp_path: Path) -> None:
    """At a recorded moment ``e`` reports the 30 minutes either side of it from the moment's own store (the
    console was given no other), not the two hours before the clock."""
    app, _ = _app(tmp_path, T0 + 120_000)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        await _press(app, pilot, "W", "e")
        assert app.last_export is not None and app.last_export.endswith(".html")
        page = Path(app.last_export).read_text(encoding="utf-8")
        assert "Window 2025-11-28 02:52:00 UTC to 2025-11-28 03:52:00 UTC" in page, page[:3000]
        assert "Incident report: cluster prod" in page and "broker 2 left" in page


async def test_question_mark_lists_the_moments_keys_only_at_a_moment(tmp_path: Path) -> None:
    """``[ ] { }`` move a recorded moment: ``?`` lists them there, and not in a live console, where they do nothing."""
    moment_keys = {"moment_previous", "moment_next", "moment_back", "moment_on"}
    app, _ = _app(tmp_path, T0 + 120_000)
    live = KzcApp(ConnectionSettings(context="prod"), config=UserConfig(), backend=RecordedBackend(b.snapshot(), []),
                  clock=lambda: (T0 + 3_600_000) / 1000)  # fmt: skip
    for console, listed in ((app, moment_keys), (live, set())):
        async with console.run_test(size=(140, 40)) as pilot:
            await settle(pilot)
            await pilot.press("question_mark")
            await settle(pilot)
            assert isinstance(console.screen, HelpScreen)
            ids = {r.cells[3] for r in console.screen.query_one(VirtualTable).visible_rows()}
            assert ids & moment_keys == listed


async def test_the_groups_screen_shows_the_lag_of_the_last_recorded_tick_or_that_none_was(tmp_path: Path) -> None:
    app, backend = _app(tmp_path, T0 + 120_000)
    tick = {"group": "billing", "source": "kafka", "state": "Stable", "topic": "orders", "partition": 0,
            "committed": 995, "end_offset": 1000, "lag": 5}  # fmt: skip
    backend.store.append("group_lag", "prod", [{"ts_ms": T0 + 30_000, "seq": 1, **tick},
                                               {"ts_ms": T0 + 150_000, "seq": 1, **tick, "lag": 120}])  # fmt: skip
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        await _press(app, pilot, "g")
        assert isinstance(app.screen, GroupsScreen)
        [row] = app.screen.query_one("#groups", VirtualTable).visible_rows()
        assert (row.cells[0], row.cells[1], row.cells[4]) == ("billing", "Stable", "5")  # not the later 120
        count = app.screen.query_one("#groups-count", TextLine).text
        assert "1 groups · 1 lagging" in count and "as of 03:20:30 (recorded)" in count, count
        await _press(app, pilot, "left_curly_bracket", "left_curly_bracket", "r")  # 03:20:00: before the first tick
        assert app.screen.query_one("#groups", VirtualTable).visible_rows() == []
        count = app.screen.query_one("#groups-count", TextLine).text
        assert "consumer groups' lag: not recorded at or before 03:20:00" in count, count


async def test_a_step_redraws_the_groups_lag_as_of_the_new_moment_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(groups_screen, "REFRESH_S", 3600.0)  # no refresh comes on its own during the test
    app, backend = _app(tmp_path, T0 + 120_000)
    tick = {"group": "billing", "source": "kafka", "state": "Stable", "topic": "orders", "partition": 0,
            "committed": 995, "end_offset": 1000, "lag": 5}  # fmt: skip
    backend.store.append("group_lag", "prod", [{"ts_ms": T0 + 30_000, "seq": 1, **tick},
                                               {"ts_ms": T0 + 150_000, "seq": 1, **tick, "end_offset": 1115,
                                                "lag": 120}])  # fmt: skip
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        await _press(app, pilot, "g")
        [row] = app.screen.query_one("#groups", VirtualTable).visible_rows()
        assert row.cells[4] == "5"
        await _press(app, pilot, "right_square_bracket")  # 03:23:00, broker 2's return: after the 03:22:30 tick
        [row] = app.screen.query_one("#groups", VirtualTable).visible_rows()
        assert row.cells[4] == "120"
        assert "as of 03:22:30 (recorded)" in app.screen.query_one("#groups-count", TextLine).text
        await _press(app, pilot, "left_square_bracket")  # back to broker 2's departure at 03:21:00
        [row] = app.screen.query_one("#groups", VirtualTable).visible_rows()
        assert row.cells[4] == "5"
