"""The console under pressure (issue 13): one class per numbered point, on the recorded 6-broker cluster
(broker 6 dead), at 80x24 where the terminal width matters."""

from __future__ import annotations

import errno
import io
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, Label, OptionList, Static

from core.consistency.findings import CheckReport, StageProgress
from core.console.view import BrokerRow, ViewBuilder
from core.snapshot.model import ClusterSnapshot
from tests.tui.helpers import FROZEN_NOW, settle, type_fast
from tui.app import KzcApp
from tui.checks_run import ChecksFinished, ChecksProgressed, ChecksRun
from tui.dialogs.jump import JumpDialog
from tui.messages import CreateTopicRequested, ExpandTopicRequested, PartitionsChosen, ZnodeChosen
from tui.screens.checks import ChecksScreen
from tui.screens.cluster import ClusterScreen
from tui.screens.create_topic import CreateTopicScreen
from tui.screens.delete import DeleteScreen
from tui.screens.help import HelpScreen
from tui.screens.partitions import PartitionsScreen
from tui.screens.topic_detail import LOADING, partition_table_row
from tui.screens.topics import TopicsScreen
from tui.terminal import TerminalGone, TerminalOutput, terminal_problem
from tui.widgets.assignment_preview import BAR_WIDTH, bars_text, grid_rows
from tui.widgets.key_bar import KeyBar, fit
from tui.widgets.virtual_table import VirtualTable

MakeApp = Callable[..., KzcApp]


@contextmanager
def notices(app: KzcApp) -> Iterator[list[str]]:
    """Every notification the app shows meanwhile."""
    seen: list[str] = []
    original = app.notify

    def record(message: str, **kwargs: object) -> None:
        seen.append(message)
        original(message, **kwargs)  # type: ignore[arg-type]

    app.notify = record  # type: ignore[method-assign]
    try:
        yield seen
    finally:
        app.notify = original  # type: ignore[method-assign]


def text(widget: Label | Static) -> str:
    return str(widget.render())


class TestJumpBox:  # point 1
    async def test_the_jump_box_shows_what_is_typed_and_its_whole_prompt(self, make_app: MakeApp) -> None:
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            app.post_message(ZnodeChosen("/brokers"))
            await settle(pilot)
            await pilot.press("g", "ctrl+a", "ctrl+k", *"/brokers/ids")
            await pilot.pause()
            dialog = app.screen
            assert isinstance(dialog, JumpDialog)
            field = dialog.query_one(Input)
            assert field.value == "/brokers/ids" and field.content_region.height >= 1
            prompt = dialog.query(Label).first()
            assert prompt.size.height >= 2  # wrapped at 80 columns, not cut
            assert "e.g. /brokers/topics/orders" in text(prompt)


class TestZnodeExplanations:  # point 2
    async def test_the_highlighted_field_shows_whole(self, make_app: MakeApp) -> None:
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            app.post_message(ZnodeChosen("/brokers/ids/1"))
            await settle(pilot)
            field = app.screen.query_one("#zk-field", Static)
            assert text(field) == "broker id = 1\nfrom the znode name, not the JSON"
            assert field.size.height >= 2


class TestFilter:  # point 3
    async def test_anchors_work_per_cell_and_column_filters_match_one_column(self, make_app: MakeApp) -> None:
        app = make_app()
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            await pilot.press("t")
            await settle(pilot)
            table = app.screen.query_one("#topics", VirtualTable)
            assert table.set_filter("urp$") is None  # the health cell; a joined row would also match "…urp"
            assert table.row_count == 199 and all(r.cells[-1] == "URP" for r in table.visible_rows())
            assert table.set_filter("ok$") is None
            assert table.row_count == 0  # no topic is healthy here: a status word never matches a row's end
            assert table.set_filter("00011$") is None
            assert table.row_count and all(r.key.endswith("00011") for r in table.visible_rows())
            assert table.set_filter("name:^orders") is None
            assert table.row_count and all(r.key.startswith("orders") for r in table.visible_rows())
            assert table.set_filter("health:^URP$") is None
            assert table.row_count and all(r.cells[-1] == "URP" for r in table.visible_rows())

    async def test_an_invalid_regex_says_why_and_keeps_the_previous_filter(self, make_app: MakeApp) -> None:
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await pilot.press("t")
            await settle(pilot)
            with notices(app) as seen:
                await pilot.press("slash", *"orders", "left_square_bracket", "enter")
                await settle(pilot)
            table = app.screen.query_one("#topics", VirtualTable)
            assert table.filter_text == "orders"
            assert any("not a valid regex" in n for n in seen)
            assert "not a valid regex" in app.screen.query_one("#topics-count").text  # type: ignore[attr-defined]

    async def test_shift_d_deletes_exactly_the_topics_the_filter_shows(self, make_app: MakeApp) -> None:
        app = make_app(read_only=False)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            await pilot.press("t", "slash", *"^audit", "enter")
            await settle(pilot)
            shown = [r.key for r in app.screen.query_one("#topics", VirtualTable).visible_rows()]
            await pilot.press("D")
            await settle(pilot)
            assert isinstance(app.screen, DeleteScreen)
            assert app.screen.selection.topics == tuple(shown) and shown


class TestMarks:  # point 4
    async def test_marks_hidden_by_the_filter_are_left_out_and_counted(self, make_app: MakeApp) -> None:
        app = make_app(read_only=False)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            await pilot.press("t")
            await settle(pilot)
            count = app.screen.query_one("#topics-count")
            await pilot.press("space")
            await pilot.pause()
            assert "1 marked" in count.text  # type: ignore[attr-defined]
            first = app.screen.query_one("#topics", VirtualTable).marked_keys[0]
            await pilot.press("slash", *"^events", "enter", "space")
            await pilot.pause()
            assert "2 marked (space), 1 hidden by the filter" in count.text  # type: ignore[attr-defined]
            await pilot.press("d")
            await settle(pilot)
            screen = app.screen
            assert isinstance(screen, DeleteScreen) and first not in screen.selection.topics
            assert len(screen.selection.topics) == 1
            notes = text(screen.query_one("#delete-notes", Label))
            assert "1 marked topic(s) hidden by the filter are NOT included" in notes


class TestReadOnly:  # point 5
    async def test_every_refused_key_says_why_and_help_lists_no_mutation(self, make_app: MakeApp) -> None:
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await pilot.press("t")
            await settle(pilot)
            for key in ("n", "d", "plus", "D"):
                with notices(app) as seen:
                    await pilot.press(key)
                    await settle(pilot)
                assert any(n.startswith("read-only mode") for n in seen), key
                assert isinstance(app.screen, TopicsScreen)
            await pilot.press("question_mark")
            await pilot.pause()
            assert isinstance(app.screen, HelpScreen)
            ids = {r.cells[3] for r in app.screen.query_one(VirtualTable).visible_rows()}
            assert not {"create_topic", "delete_topic", "expand_topic", "delete_matching", "submit"} & ids
            assert "read-only" in text(app.screen.query_one("#help-title", Label))

    async def test_the_palette_says_create_is_refused(self, make_app: MakeApp) -> None:
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await pilot.press("colon", *"create")
            await settle(pilot)
            hits = [str(o.prompt) for o in app.screen.query_one(OptionList).options]
            assert hits and all("not available in read-only mode" in h for h in hits)


async def spark_run_shown(app: KzcApp, pilot: Pilot[None], progress: StageProgress) -> tuple[ChecksScreen, str]:
    """The checks screen showing a running Spark run that reported ``progress``, and its summary line."""
    await settle(pilot)
    await pilot.press("x")
    await settle(pilot)
    app.checks = ChecksRun(running=True, engine="spark", started_at=0.0)
    app.post_message(ChecksProgressed(progress))
    await settle(pilot)
    screen = app.screen
    assert isinstance(screen, ChecksScreen)
    screen.show_run(app.checks)
    await pilot.pause()
    return screen, text(screen.query_one("#checks-summary", Label))


class TestChecks:  # point 6
    async def test_progress_shows_the_stage_and_elapsed_time(self, make_app: MakeApp) -> None:
        app = make_app()
        async with app.run_test(size=(120, 40)) as pilot:
            screen, summary = await spark_run_shown(app, pilot, StageProgress("start Spark", 0, 1))
            assert "running with spark: start Spark" in summary and "elapsed" in summary
            assert text(screen.query_one(".elapsed", Label)).startswith("running ")

    async def test_the_summary_says_which_step_of_the_load_the_run_waits_on(self, make_app: MakeApp) -> None:
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            _, summary = await spark_run_shown(app, pilot, StageProgress("load", 1, 3, step="starting Spark"))
            assert "running with spark: load: starting Spark, step 2 of 3" in summary

    async def test_a_checks_screen_opened_after_a_run_shows_its_report(self, make_app: MakeApp) -> None:
        app = make_app()
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            await pilot.press("t", "x")  # checks above topics: going back to topics closes the checks screen
            await settle(pilot)
            app.checks = ChecksRun(running=True, engine="local")
            app.post_message(ChecksFinished(CheckReport((), 800, (), "local", {"total": 0.2})))
            await settle(pilot)
            await pilot.press("t")
            await settle(pilot)
            assert not any(isinstance(s, ChecksScreen) for s in app.screen_stack)
            await pilot.press("x")
            await settle(pilot)
            assert text(app.screen.query_one("#checks-summary", Label)).startswith("0 findings: 0 errors")
            table = app.screen.query_one("#findings", VirtualTable)
            assert table.empty_text.startswith("no findings: every check passed")

    async def test_a_clean_run_says_no_findings(self, make_app: MakeApp) -> None:
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await pilot.press("x")
            await settle(pilot)
            app.checks = ChecksRun(running=True, engine="local")
            app.post_message(ChecksFinished(CheckReport((), 800, (), "local", {"total": 0.2})))
            await settle(pilot)
            table = app.screen.query_one("#findings", VirtualTable)
            assert table.row_count == 0 and table.empty_text.startswith("no findings: every check passed")
            assert app.screen.query_one("#checks-summary", Label).size.height >= 1


class TestResults:  # point 7 (the live follow is covered by tests/tui/test_console_live.py's expand test)
    async def test_a_result_wraps_instead_of_being_cut(self, make_app: MakeApp) -> None:
        app = make_app(read_only=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            app.post_message(ExpandTopicRequested("events.orders-00011"))
            await settle(pilot)
            phase = app.screen.query_one("#phase", Label)
            phase.update(
                "written: clicks.raw now has 9 partitions; waiting for the controller to bring the new ones online…"
            )
            await pilot.pause()
            assert phase.size.height >= 2


class TestGlyphs:  # point 8 and the bars of point 11
    def test_new_partitions_are_marked_and_bars_share_one_scale(self, small_snapshot: ClusterSnapshot) -> None:
        from core.console.assignment_preview import assignment_preview
        from core.topics.plan import ExpandRequest
        from tests.recorded_backend import RecordedBackend

        backend = RecordedBackend(small_snapshot, [], read_only=False)
        preview = assignment_preview(backend.plan_expand(ExpandRequest("events.orders-00011", 6)))
        rows = grid_rows(preview)
        assert [r.cells[0] for r in rows] == ["0", "1", "2", "3", "+4", "+5"]
        metrics = preview.metrics
        assert metrics is not None
        lines = bars_text(preview).splitlines()
        busiest = max(metrics.replicas_per_broker.values())
        for line, broker in zip(lines, preview.brokers, strict=True):
            replicas = metrics.replicas_per_broker.get(broker.id, 0)
            leaders = metrics.leaders_per_broker.get(broker.id, 0)
            replica_bar, leader_bar = line.split(" replicas ")
            assert leader_bar.count("█") == round(BAR_WIDTH * leaders / busiest)  # one scale for both
            assert replica_bar.count("█") == round(BAR_WIDTH * replicas / busiest)


class TestBrokersAndOffsets:  # point 9
    def test_a_broker_that_leaves_keeps_its_last_endpoint_and_rack(self, small_snapshot: ClusterSnapshot) -> None:
        from dataclasses import replace

        builder = ViewBuilder()
        before = builder.build(small_snapshot, int(FROZEN_NOW * 1000))
        assert next(b for b in before.brokers if b.id == 2).alive
        brokers = {k: v for k, v in small_snapshot.brokers.items() if k != 2}
        after = builder.build(replace(small_snapshot, brokers=brokers), int(FROZEN_NOW * 1000))
        gone: BrokerRow = next(b for b in after.brokers if b.id == 2)
        assert not gone.alive and gone.endpoints and gone.rack == "rack-2"

    async def test_the_cluster_screen_marks_gone_brokers_and_counts_them(self, make_app: MakeApp) -> None:
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            totals = text(app.screen.query_one("#health-totals", Label))
            assert "5 brokers + 1 gone" in totals

    def test_missing_offsets_show_loading_for_a_led_partition(self, small_snapshot: ClusterSnapshot) -> None:
        from core.console.view import partition_rows

        entry = small_snapshot.topics["events.orders-00011"]
        rows = partition_rows(small_snapshot, entry)
        led = next(r for r in rows if r.leader is not None and r.leader >= 0)
        assert partition_table_row(led, None, loading=True).cells[8:10] == (LOADING, LOADING)
        assert partition_table_row(led, None, loading=False).cells[8:10] == ("", "")


async def open_create_form(app: KzcApp, pilot: Pilot[None]) -> CreateTopicScreen:
    """The create-topic form, open and settled."""
    await settle(pilot)
    app.post_message(CreateTopicRequested())
    await settle(pilot)
    assert isinstance(app.screen, CreateTopicScreen)
    return app.screen


class TestCreateForm:  # point 10
    async def test_internal_names_warn_and_an_invalid_name_clears_the_preview(self, make_app: MakeApp) -> None:
        app = make_app(read_only=False)
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await open_create_form(app, pilot)
            name = screen.query_one("#name", Input)
            name.value = "__transaction_state"
            await settle(pilot)
            assert "internal topics" in text(screen.query_one("#name-problem", Label))
            name.value = "ok.name"
            await settle(pilot)
            assert screen.query_one("#preview-grid", VirtualTable).total_count > 0
            name.value = ".."
            await settle(pilot)
            assert screen.query_one("#preview-grid", VirtualTable).total_count == 0

    async def test_fast_typing_fills_each_field_and_the_preview_uses_it(self, make_app: MakeApp) -> None:
        app = make_app(read_only=False)
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await open_create_form(app, pilot)
            # All at once, as over SSH: the keys after a tab belong to the next field (tab selects its value).
            type_fast(app, *"clicks.raw", "tab", "backspace", *"12", "tab", "backspace", "2")
            await settle(pilot)
            fields = {field.id: field for field in screen.query(Input)}
            assert (fields["name"].value, fields["partitions"].value, fields["rf"].value) == ("clicks.raw", "12", "2")
            assert fields["rf"].render_line(0).text.strip() == "2"
            assert fields["partitions"].render_line(0).text.strip() == "12"
            rows = screen.query_one("#preview-grid", VirtualTable).visible_rows()
            assert len(rows) == 12
            assert all(sum(cell in ("L", "r") for cell in row.cells[1:-1]) == 2 for row in rows)

    async def test_keys_typed_right_after_n_never_act_on_the_topics_table(self, make_app: MakeApp) -> None:
        app = make_app(read_only=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await pilot.press("t")
            await settle(pilot)
            assert isinstance(app.screen, TopicsScreen)
            # "n" then a name in one burst: the letters reach the topics screen before the form is up;
            # "d" must not open a deletion nor "n" a second form behind it...
            type_fast(app, "n", *"orders.dn")
            await settle(pilot)
            assert isinstance(app.screen, CreateTopicScreen)
            assert [type(s) for s in app.screen_stack[-2:]] == [TopicsScreen, CreateTopicScreen]
            assert not any(isinstance(s, DeleteScreen) for s in app.screen_stack)
            # ... and they reach the form's name field, in order.
            assert app.screen.query_one("#name", Input).value == "orders.dn"

    async def test_a_long_name_stays_inside_the_screen_and_shows_its_end(self, make_app: MakeApp) -> None:
        app = make_app(read_only=False)
        async with app.run_test(size=(80, 24)) as pilot:
            name = (await open_create_form(app, pilot)).query_one("#name", Input)
            type_fast(app, *("payments.ledger." * 5), *"END")
            await settle(pilot)
            assert name.region.right <= 80
            assert name.render_line(0).text.rstrip().endswith("END")


class TestTerminal:  # point 11
    @pytest.mark.parametrize("env", [{"TERM": "dumb"}, {}])
    def test_a_dumb_terminal_gets_one_line_pointing_to_the_cli(self, env: dict[str, str]) -> None:
        problem = terminal_problem(env, is_tty=True)
        assert problem is not None and "\n" not in problem and "kzc describe" in problem

    def test_a_real_terminal_is_fine(self) -> None:
        assert terminal_problem({"TERM": "xterm-256color"}, is_tty=True) is None

    def test_a_write_the_terminal_fails_says_it_is_gone_once_and_drops_later_writes(self) -> None:
        class HungUp(io.StringIO):
            def write(self, text: str) -> int:
                raise OSError(errno.EIO, "Input/output error")

        gone: list[str] = []
        output = TerminalOutput(HungUp(), lambda: gone.append("gone"))
        assert output.write("a frame") == 7 and output.write("the next") == 8
        output.flush()
        assert gone == ["gone"] and output.is_gone

    def test_a_terminal_that_cannot_take_more_yet_is_not_gone(self) -> None:
        class Full(io.StringIO):
            def write(self, text: str) -> int:
                raise BlockingIOError(errno.EAGAIN, "Resource temporarily unavailable")

        output = TerminalOutput(Full(), lambda: pytest.fail("a full terminal is not a lost one"))
        with pytest.raises(BlockingIOError):
            output.write("a frame")
        assert not output.is_gone

    async def test_a_lost_terminal_quits_the_console(self, make_app: MakeApp) -> None:
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            app.post_message(TerminalGone())
            await settle(pilot)
            assert app.return_code == 0

    def test_the_key_line_keeps_help_at_80_columns(self) -> None:
        pairs = tuple((k, d) for k, d in [("⏎", "Open"), ("/", "Filter"), ("e", "Export"), ("b", "Brokers"),
                      ("w", "Pending"), ("v", "Events"), ("h", "Health"), (":", "Command"), ("?", "Help"),
                      ("q", "Quit")])  # fmt: skip
        shown = fit(pairs, 80)
        assert shown[-1] == ("?", "Help") and sum(len(k) + len(d) + 3 for k, d in shown) <= 80

    async def test_the_palette_icon_is_plain(self, make_app: MakeApp) -> None:
        from textual.command import SearchIcon

        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await pilot.press("colon")
            await settle(pilot)
            assert app.screen.query_one(SearchIcon).icon == ":"

    async def test_help_title_sits_inside_the_box(self, make_app: MakeApp) -> None:
        app = make_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await pilot.press("question_mark")
            await pilot.pause()
            box = app.screen.query_one("#help-box")
            title = app.screen.query_one("#help-title")
            assert box.region.contains_region(title.region)
            assert app.screen.query(KeyBar) is not None


class TestDrillDowns:  # point 12
    async def test_enter_on_a_health_counter_lists_its_partitions(self, make_app: MakeApp) -> None:
        app = make_app()
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            assert isinstance(app.screen, ClusterScreen)
            await pilot.press("h", "enter")
            await settle(pilot)
            screen = app.screen
            assert isinstance(screen, PartitionsScreen)
            rows = screen.query_one("#selected-partitions", VirtualTable).visible_rows()
            assert len(rows) == 1 and rows[0].cells[6] in ("offline", "no-state")
            await pilot.press("enter")
            await settle(pilot)
            assert app.screen.query_one("#topic-summary", Label) is not None

    async def test_the_under_replicated_list_matches_its_counter(self, make_app: MakeApp) -> None:
        app = make_app()
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            app.post_message(PartitionsChosen("under-replicated partitions", "under-replicated"))
            await settle(pilot)
            assert app.view is not None
            table = app.screen.query_one("#selected-partitions", VirtualTable)
            assert table.total_count == app.view.health.under_replicated

    async def test_enter_on_a_broker_lists_what_it_leads_and_hosts(self, make_app: MakeApp) -> None:
        app = make_app()
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            await pilot.press("b", "enter", "p")  # Enter opens the broker, p its partitions
            await settle(pilot)
            screen = app.screen
            assert isinstance(screen, PartitionsScreen) and app.view is not None
            broker = next(b for b in app.view.brokers if b.id == 1)
            rows = screen.query_one("#selected-partitions", VirtualTable).visible_rows()
            assert len(rows) == broker.replicas
            assert sum(1 for r in rows if r.cells[2] == "leader") == broker.leaders

    async def test_headers_show_the_sort_column_and_any_column_sorts(self, make_app: MakeApp) -> None:
        app = make_app()
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            await pilot.press("t")
            await settle(pilot)
            table = app.screen.query_one("#topics", VirtualTable)
            table.sort_by(1)
            await pilot.pause()
            assert "▲" in table.render_line(0).text.split()[1]
            table.sort_by(1)
            parts = [int(r.cells[1]) for r in table.visible_rows()]
            assert parts == sorted(parts, reverse=True)
            await pilot.press("S")
            assert table.sort_description.startswith("topic")


class TestFixKeys:  # issue 14: the fixes open from the cluster screen and the topic detail
    async def test_read_only_refuses_move_off_election_and_config_and_says_why(self, make_app: MakeApp) -> None:
        app = make_app()
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            for key in ("m", "P"):
                with notices(app) as seen:
                    await pilot.press(key)
                    await settle(pilot)
                assert any(n.startswith("read-only mode") for n in seen), key
                assert isinstance(app.screen, ClusterScreen)

    async def test_a_recording_says_the_fixes_are_not_available_here(self, make_app: MakeApp) -> None:
        app = make_app(read_only=False)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            with notices(app) as seen:
                await pilot.press("m")
                await settle(pilot)
            assert any("moving replicas: not available here" in n for n in seen)
            assert isinstance(app.screen, ClusterScreen)
