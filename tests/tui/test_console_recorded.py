"""The console on a recorded cluster (no network): frame, navigation, palette, filter, help, key remaps,
read-only, export, themes, and each screen's content."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from textual.binding import Binding
from textual.widgets import Input, Label, OptionList, Static

from core.config import UserConfig
from core.consistency.findings import CheckReport
from core.console.protocols import ProgressListener
from core.errors import ReadOnlyError
from core.kafka.znodes import ClusterId
from core.topics.plan import DeleteRequest
from tests.recorded_backend import RecordedBackend
from tests.tui.helpers import settle
from tui.app import KzcApp
from tui.messages import CreateTopicRequested, DeleteTopicsRequested, TopicChosen, ZnodeChosen
from tui.screens import SCREEN_CLASSES
from tui.screens.checks import ChecksScreen
from tui.screens.cluster import ClusterScreen
from tui.screens.create_topic import CreateTopicScreen
from tui.screens.delete import DeleteScreen
from tui.screens.help import HelpScreen
from tui.screens.topic_detail import TopicDetailScreen
from tui.screens.topics import TopicsScreen
from tui.screens.zk_browser import ZkBrowserScreen
from tui.widgets.event_log import EventLog
from tui.widgets.key_bar import KeyBar
from tui.widgets.status_bar import StatusBar
from tui.widgets.text_line import TextLine
from tui.widgets.virtual_table import VirtualTable

MakeApp = Callable[..., KzcApp]


def label_text(app: KzcApp, selector: str) -> str:
    widget = app.screen.query_one(selector)
    return widget.text if isinstance(widget, TextLine) else str(widget.render())


class TestFrame:
    async def test_cluster_screen_shows_controller_brokers_pending_health_and_events(self, make_app: MakeApp) -> None:
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            screen = app.screen
            assert isinstance(screen, ClusterScreen)
            controller = str(screen.query_one("#controller-text", Static).render())
            assert "broker 1 · epoch 8 · 1 move seen" in controller
            snapshot = app.backend.snapshot()
            assert isinstance(snapshot.cluster_id, ClusterId)
            assert f"cluster {snapshot.cluster_id.id}" in controller
            # registrations v5; the sizes (DescribeLogDirs) say a recording has none
            title = screen.query_one("#brokers").border_title
            assert title == "Brokers · Kafka 2.7+ · sizes: no brokers in a recording"
            brokers = screen.query_one("#brokers", VirtualTable).visible_rows()
            assert [r.key for r in brokers] == ["1", "2", "3", "4", "5", "6"]
            dead = brokers[-1]
            assert dead.cells[-1] == "NO" and "dead" in dead.meanings and dead.cells[3] == "unknown"
            assert brokers[0].cells[1] == "kafka-1.example:9092" and brokers[0].cells[2] == "rack-1"
            pending = screen.query_one("#pending", VirtualTable).visible_rows()
            assert pending[0].cells[0] == "deletion"
            assert "replicas on broker(s) 6, which are not registered" in pending[0].cells[3]
            assert label_text(app, "#health-offline") == "offline 1"
            assert screen.query_one("#health-offline", Label).has_class("-offline")
            events = screen.query_one("#events", EventLog).visible_rows()
            assert events[0].cells[2] == "health: 1 offline, 403 under-replicated, 1 under min ISR"  # as kzc watch
            assert "error" in events[0].meanings
            assert [(r.cells[0], r.cells[2]) for r in events][1:3] == [
                ("22:03:29", "topic orders.orders-00000 created (4 partitions, rf 3)"),
                ("22:03:24", "controller moved 6 -> 1 (epoch 8)"),
            ]
            assert all(r.cells[1].endswith(" ago") for r in events)  # relative times, from the app's clock
            assert "error" in events[-1].meanings and events[-1].cells[2] == "broker 6 left (kafka-6.example:9092)"

    async def test_status_line_shows_context_state_controller_read_only_and_last_change(
        self, make_app: MakeApp
    ) -> None:
        app = make_app()
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            bar = app.screen.query_one(StatusBar)
            assert str(bar.query_one("#status-context", Label).render()) == "recorded"
            assert str(bar.query_one("#status-zk", Label).render()) == "ZK connected"
            assert str(bar.query_one("#status-controller", Label).render()) == "controller 1 epoch 8"
            assert bar.query_one("#status-ro", Label).display
            assert bar.query_one("#status-last", TextLine).text == "changed 22:03:29 (9m 51s ago)"
            await pilot.resize_terminal(80, 24)
            await settle(pilot)
            assert bar.query_one("#status-last", TextLine).text == "changed 9m 51s ago"  # what fits, "changed" kept

    async def test_every_binding_has_an_id(self) -> None:
        missing = [
            f"{where}: {b.key} -> {b.action}"
            for where, owner in [("app", KzcApp), *SCREEN_CLASSES]
            for b in getattr(owner, "BINDINGS", [])
            if isinstance(b, Binding) and not b.id
        ]
        assert missing == []


class TestNavigation:
    async def test_palette_opens_with_colon_and_runs_screen_commands(self, make_app: MakeApp) -> None:
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await pilot.press("colon", *"topics")
            await settle(pilot)
            await pilot.press("enter")
            await settle(pilot)
            assert isinstance(app.screen, TopicsScreen)
            await pilot.press("colon", *"topic audit.orders-00003")
            await settle(pilot)
            await pilot.press("enter")
            await settle(pilot)
            assert isinstance(app.screen, TopicDetailScreen) and app.screen.topic == "audit.orders-00003"
            await pilot.press("colon", *"zk /brokers/ids/2")
            await settle(pilot)
            await pilot.press("enter")
            await settle(pilot)
            assert isinstance(app.screen, ZkBrowserScreen) and app.screen.path == "/brokers/ids/2"

    async def test_escape_goes_back_and_the_cluster_screen_is_the_root(self, make_app: MakeApp) -> None:
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await pilot.press("t")
            await settle(pilot)
            await pilot.press("enter")
            await settle(pilot)
            assert isinstance(app.screen, TopicDetailScreen)
            await pilot.press("escape")
            assert isinstance(app.screen, TopicsScreen)
            await pilot.press("escape", "escape")
            assert isinstance(app.screen, ClusterScreen)

    async def test_q_quits(self, make_app: MakeApp) -> None:
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await pilot.press("q")
            await pilot.pause()
            assert not app.is_running

    async def test_a_main_screen_already_open_is_returned_to(self, make_app: MakeApp) -> None:
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await pilot.press("t")
            await settle(pilot)
            topics = app.screen
            await pilot.press("z")
            await settle(pilot)
            await pilot.press("t")
            await settle(pilot)
            assert app.screen is topics and len(app.screen_stack) == 3


class TestFilterHelpKeys:
    async def test_slash_filters_the_table_live_and_escape_clears_it(self, make_app: MakeApp) -> None:
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await pilot.press("t")
            await settle(pilot)
            table = app.screen.query_one("#topics", VirtualTable)
            await pilot.press("slash", *"^orders\\.(a|b)")
            assert {r.key for r in table.visible_rows()} == {"orders.audit-00060", "orders.billing-00080"}
            # the recording has no brokers: the sizes say so on the same line, after what the traffic says
            count = label_text(app, "#topics-count")
            assert count.startswith("2 of 200 topics matching /^orders\\.(a|b)/ · traffic: ")
            assert count.endswith(" · sizes: no brokers in a recording")
            await pilot.press("enter")
            assert app.focused is table
            await pilot.press("slash", "escape")
            assert table.row_count == 200

    async def test_question_mark_lists_every_binding_with_its_id_and_keys(self, make_app: MakeApp) -> None:
        app = make_app(read_only=False)
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot)
            await pilot.press("question_mark")
            await pilot.pause()
            assert isinstance(app.screen, HelpScreen)
            rows = app.screen.query_one(VirtualTable).visible_rows()
            ids = {r.cells[3] for r in rows}
            assert {"quit", "help", "command_palette", "filter", "export", "create_topic", "delete_topic",
                    "jump_to_path", "copy_path", "reshuffle", "dry_run", "submit", "run_checks"} <= ids  # fmt: skip
            assert ("?", "Help", "everywhere", "help") in [r.cells for r in rows]
            await pilot.press("escape")
            assert isinstance(app.screen, ClusterScreen)

    async def test_bindings_are_remapped_by_id_from_the_config_file(self, make_app: MakeApp) -> None:
        app = make_app(config=UserConfig(keys={"show_topics": "T", "quit": "ctrl+q"}))
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await pilot.press("t", "q")
            assert isinstance(app.screen, ClusterScreen) and app.is_running
            await pilot.press("T")
            await settle(pilot)
            assert isinstance(app.screen, TopicsScreen)
            await pilot.press("question_mark")
            await pilot.pause()
            rows = app.screen.query_one(VirtualTable).visible_rows()
            assert ("ctrl+q", "Quit", "everywhere", "quit") in [r.cells for r in rows]
            await pilot.press("escape", "ctrl+q")
            await pilot.pause()
            assert not app.is_running

    async def test_an_unknown_binding_id_in_the_config_file_is_reported(self, make_app: MakeApp) -> None:
        app = make_app(config=UserConfig(keys={"no_such_binding": "x"}))
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            assert any("[keys] no_such_binding" in p for p in app.config_problems)


class TestReadOnlyAndExport:
    async def test_read_only_hides_and_refuses_every_mutation(self, make_app: MakeApp) -> None:
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await pilot.press("t")
            await settle(pilot)
            screen = app.screen
            shown = {description for _key, description in screen.query_one(KeyBar).shown}
            assert not {"New topic", "Add partitions", "Delete", "Delete matching"} & shown
            await pilot.press("n", "d", "plus", "D")
            await settle(pilot)
            assert app.screen is screen
            app.post_message(CreateTopicRequested())
            app.post_message(DeleteTopicsRequested(topics=("audit.orders-00003",)))
            await settle(pilot)
            assert app.screen is screen
            await pilot.press("colon", *"create")
            await settle(pilot)
            palette_hits = [str(option.prompt) for option in app.screen.query_one(OptionList).options]
            assert palette_hits and all("not available in read-only mode" in hit for hit in palette_hits)
            with pytest.raises(ReadOnlyError):
                app.backend.apply_delete(app.backend.plan_delete(DeleteRequest(topics=("audit.orders-00003",))), "x")

    async def test_e_exports_the_table_to_a_json_file_whose_path_is_shown(
        self, make_app: MakeApp, tmp_path: Path
    ) -> None:
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await pilot.press("t", "slash", *"payments\\.", "enter", "e")
            await settle(pilot)
            assert app.last_export is not None
            path = Path(app.last_export)
            assert path.parent == tmp_path / "exports" and path.name.startswith("kzc-topics-")
            data = json.loads(path.read_text())
            assert data["kzc_export"] == "topics" and data["filter"] == "payments\\."
            assert len(data["rows"]) == 10 and data["rows"][0]["partitions"] == 4


class TestThemes:
    async def test_no_color_selects_the_monochrome_theme(
        self, make_app: MakeApp, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setenv("NO_COLOR", "1")
        app = make_app(config=UserConfig(theme="light"))
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            assert app.theme == "monochrome"

    async def test_the_configured_theme_and_user_theme_files_are_used(
        self, make_app: MakeApp, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
    ) -> None:
        monkeypatch.delenv("NO_COLOR", raising=False)
        themes = tmp_path / "themes"
        themes.mkdir()
        (themes / "oncall.toml").write_text('name = "oncall"\nprimary = "#ff8800"\n[variables]\n')
        (themes / "broken.toml").write_text('name = "broken"\nprimary = 3\n')
        monkeypatch.setenv("KZC_CONFIG", str(tmp_path / "config.toml"))
        app = make_app(config=UserConfig(theme="oncall"))
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            assert app.theme == "oncall"
            assert {"dark", "light", "high-contrast", "monochrome", "oncall"} <= set(app.theme_set.themes)
            assert any("broken.toml" in p and "primary must be a colour" in p for p in app.config_problems)


class TestScreens:
    async def test_topic_detail_shows_health_and_acks_all_per_min_isr(self, make_app: MakeApp) -> None:
        app = make_app()
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            app.post_message(TopicChosen("events.orders-00011"))  # one offline partition in the synthetic layout
            await settle(pilot)
            rows = app.screen.query_one("#partitions", VirtualTable).visible_rows()
            offline = rows[1]
            assert offline.cells[1] == "-1"
            assert offline.cells[6] == "offline" and offline.cells[7] == "NO" and "offline" in offline.meanings
            assert app.view is not None
            topic = next(t for t in app.view.topics if t.min_isr == 2 and t.under_replicated)
            app.post_message(TopicChosen(topic.name))  # min.insync.replicas=2, a replica on the dead broker 6
            await settle(pilot)
            rows = app.screen.query_one("#partitions", VirtualTable).visible_rows()
            urp = [r for r in rows if "under-replicated" in r.meanings]
            assert urp and all(r.cells[6] == "under-replicated" for r in urp)
            assert all(r.cells[7] == ("yes" if len(r.cells[4].split(",")) >= 2 else "NO") for r in urp)
            configs = app.screen.query_one("#configs", VirtualTable).visible_rows()
            assert [r.cells for r in configs] == [("min.insync.replicas", "2"), ("retention.ms", "604800000")]

    async def test_zk_browser_explains_kafka_znodes_and_jumps_to_a_path(self, make_app: MakeApp) -> None:
        app = make_app()
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            app.post_message(ZnodeChosen("/brokers/ids/1"))
            await settle(pilot)
            screen = app.screen
            assert isinstance(screen, ZkBrowserScreen)
            assert label_text(app, "#zk-kind").startswith("broker registration")
            fields = [r.cells[0] for r in screen.query_one("#zk-explained", VirtualTable).visible_rows()]
            assert "endpoint" in fields and "rack" in fields
            await pilot.press("g")
            await pilot.pause()
            dialog_input = app.screen.query_one("#jump-path", Input)
            dialog_input.value = "/brokers/topics/audit.orders-00003/partitions/1/state"
            await pilot.press("enter")
            await settle(pilot)
            assert screen.path == "/brokers/topics/audit.orders-00003/partitions/1/state"
            assert label_text(app, "#zk-kind").startswith("partition state")
            await pilot.press("y")

    async def test_checks_run_show_findings_by_severity_and_jump_to_the_topic(self, make_app: MakeApp) -> None:
        app = make_app()
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            await pilot.press("x", "l")
            await settle(pilot)
            screen = app.screen
            assert isinstance(screen, ChecksScreen)
            rows = screen.query_one("#findings", VirtualTable).visible_rows()
            assert rows[0].cells[:3] == ("error", "offline_partition", "events.orders-00011")
            assert {r.cells[0] for r in rows} == {"error", "warning", "info"}
            # The offline partition is also under min ISR (no live leader), as kafka-topics lists it.
            assert label_text(app, "#checks-summary").startswith(f"{len(rows)} findings: 2 errors")
            await pilot.press("enter")
            await settle(pilot)
            assert isinstance(app.screen, TopicDetailScreen) and app.screen.topic == "events.orders-00011"

    async def test_a_check_run_that_crashes_is_reported_and_the_next_run_starts(
        self, make_app: MakeApp, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        app = make_app()
        healthy_run = RecordedBackend.run_checks
        failures = iter([RuntimeError("the engine fell over")])

        def flaky(self: RecordedBackend, progress: ProgressListener, engine: str = "local") -> CheckReport:
            for failure in failures:
                raise failure
            return healthy_run(self, progress, engine)

        monkeypatch.setattr(RecordedBackend, "run_checks", flaky)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            await pilot.press("x", "l")
            await settle(pilot)
            assert not app.checks.running and app.checks.error == "RuntimeError: the engine fell over"
            await pilot.press("l")
            await settle(pilot)
            assert not app.checks.running and app.checks.report is not None and app.checks.error is None

    async def test_create_form_checks_the_name_as_you_type_and_previews_kafkas_assignment(
        self, make_app: MakeApp
    ) -> None:
        app = make_app(read_only=False)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            app.post_message(CreateTopicRequested())
            await settle(pilot)
            screen = app.screen
            assert isinstance(screen, CreateTopicScreen)
            await pilot.press(*"bad name")
            await settle(pilot)
            assert label_text(app, "#name-problem") == (
                "Topic name is invalid: 'bad name' contains one or more characters other than ASCII "
                "alphanumerics, '.', '_' and '-'"
            )
            screen.query_one("#name", Input).value = "orders_orders-00000"
            await settle(pilot)
            assert label_text(app, "#name-problem") == (
                "Topic 'orders_orders-00000' collides with existing topics: orders.orders-00000"
            )
            screen.query_one("#name", Input).value = "fresh-topic"
            await settle(pilot)
            grid = screen.query_one("#preview-grid", VirtualTable)
            first = [r.cells for r in grid.visible_rows()]
            assert len(first) == 6 and all(cells.count("L") == 1 and cells.count("r") == 2 for cells in first)
            metrics = screen.query_one("#preview-metrics", Static)
            before = str(metrics.render())
            await pilot.press("ctrl+r")
            await settle(pilot)
            assert "Kafka's algorithm, seed" in before and str(metrics.render()) != before  # a new random start
            await pilot.press("ctrl+d")
            await pilot.pause()
            dry = str(screen.query_one("#dry-run", Static).render())
            assert "create /brokers/topics/fresh-topic" in dry and "create /config/topics/fresh-topic" in dry
            await pilot.press("ctrl+s")
            await settle(pilot)
            assert "recorded snapshot" in label_text(app, "#plan-problem")

    async def test_delete_asks_for_the_typed_name_and_refuses_a_wrong_one(self, make_app: MakeApp) -> None:
        app = make_app(read_only=False)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            app.post_message(DeleteTopicsRequested(topics=("__consumer_offsets",)))
            await settle(pilot)
            assert label_text(app, "#phase") == (
                "nothing to delete: Topic __consumer_offsets is a kafka internal topic and is not allowed to be "
                "marked for deletion."
            )
            await pilot.press("escape")
            app.post_message(DeleteTopicsRequested(topics=("audit.orders-00003",)))
            await settle(pilot)
            screen = app.screen
            assert isinstance(screen, DeleteScreen)
            rows = screen.query_one("#delete-list", VirtualTable).visible_rows()
            assert [r.key for r in rows] == ["audit.orders-00003"]
            await pilot.press(*"audit", "enter")
            await pilot.pause()
            assert label_text(app, "#phase") == "confirmation does not match: type audit.orders-00003"
