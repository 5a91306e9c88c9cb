"""Broker configs in the console: the broker screen lists them (dynamic first, with their source), ``C`` edits
the broker's dynamic configs in the config form (Kafka's refusal shown, secrets never), ``D`` the default."""

from __future__ import annotations

from textual.app import App
from textual.screen import Screen
from textual.widgets import Input, Static

from core.config import ConnectionSettings, UserConfig
from core.configs.broker import BrokerConfigPlan, BrokerConfigRequest, BrokerConfigsView, plan_broker_change
from core.configs.zk import StoredConfig
from core.snapshot.model import ClusterSnapshot
from tests.recorded_backend import RecordedBackend
from tests.tui.helpers import FROZEN_NOW, recorded_events, settle
from tui.app import KzcApp
from tui.messages import BrokerChosen, ChangeFinished
from tui.screens.broker import BrokerScreen
from tui.screens.config_edit import BrokerConfigEditScreen
from tui.widgets.virtual_table import VirtualTable


class FakeBrokerConfigs:
    """The broker path's real checks (``plan_broker_change``, ZooKeeper, brokers 1-3 running) on a fake store."""

    def __init__(self) -> None:
        self.config = StoredConfig("brokers", "1", (("ssl.keystore.password", "encrypted-blob"),), 3)
        self.applied: list[BrokerConfigPlan] = []

    def stored(self, entity: str) -> StoredConfig:
        return self.config

    def plan(self, request: BrokerConfigRequest) -> BrokerConfigPlan:
        return plan_broker_change(request, self.config, "zookeeper", [1, 2, 3], before_1_1=False)

    def apply(self, plan: BrokerConfigPlan) -> StoredConfig:
        self.applied.append(plan)
        self.config = StoredConfig("brokers", "1", plan.after, 4)
        return self.config

    def view(self, broker: int) -> BrokerConfigsView:
        return BrokerConfigsView(broker, ())


class Host(App[None]):
    def __init__(self, screen: Screen[None]) -> None:
        super().__init__()
        self.first = screen
        self.changes: list[ChangeFinished] = []

    def on_mount(self) -> None:
        self.push_screen(self.first)

    def on_change_finished(self, message: ChangeFinished) -> None:
        self.changes.append(message)


def text(app: App[None], selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


async def test_the_broker_screen_lists_its_configs_dynamic_first(small_snapshot: ClusterSnapshot) -> None:
    rows = [("num.io.threads", "8", "STATIC_BROKER_CONFIG"), ("log.cleaner.threads", "2", "DYNAMIC_BROKER_CONFIG"),
            ("follower.replication.throttled.rate", "100", "DYNAMIC_DEFAULT_BROKER_CONFIG")]  # fmt: skip
    backend = RecordedBackend(
        small_snapshot, recorded_events(), now_ms=lambda: int(FROZEN_NOW * 1000), broker_configs=rows
    )
    app = KzcApp(ConnectionSettings(), config=UserConfig(), backend=backend, clock=lambda: FROZEN_NOW)
    async with app.run_test(size=(140, 50)) as pilot:
        await settle(pilot)
        app.post_message(BrokerChosen(2))
        await settle(pilot)
        assert isinstance(app.screen, BrokerScreen)
        shown = app.screen.query_one("#broker-configs", VirtualTable).visible_rows()
        assert [r.cells[2] for r in shown] == [
            "DYNAMIC_BROKER_CONFIG",
            "DYNAMIC_DEFAULT_BROKER_CONFIG",
            "STATIC_BROKER_CONFIG",
        ]
        await pilot.press("C")  # a recording changes nothing: the app refuses and says why
        await settle(pilot)
        assert isinstance(app.screen, BrokerScreen)


async def test_broker_config_edit_refuses_as_kafka_configs_does_and_writes_the_throttle_rate() -> None:
    actions = FakeBrokerConfigs()
    app = Host(BrokerConfigEditScreen("1", actions))
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        assert "ssl.keystore.password=(secret)" in text(app, "#current")
        assert "encrypted-blob" not in text(app, "#current")
        app.screen.query_one("#set", Input).value = "log.cleaner.threads=2"
        await pilot.press("ctrl+d")
        await settle(pilot)
        assert "Set(log.cleaner.threads). when broker 1 is running" in text(app, "#status")
        app.screen.query_one("#set", Input).value = "leader.replication.throttled.rate=1000"
        await pilot.press("ctrl+d")
        await settle(pilot)
        assert "+ leader.replication.throttled.rate=1000" in text(app, "#diff")
        app.screen.query_one("#confirm", Input).value = "2"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert actions.applied == []
        app.screen.query_one("#confirm", Input).value = "1"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert [dict(p.after) for p in actions.applied] == [
            {"ssl.keystore.password": "encrypted-blob", "leader.replication.throttled.rate": "1000"}
        ]
        assert [c.text for c in app.changes] == [
            "you: config of broker 1 written: + leader.replication.throttled.rate=1000"
        ]
