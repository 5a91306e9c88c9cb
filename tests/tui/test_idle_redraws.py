"""An idle console sends nothing: the once-a-second ticks redraw only what changed (every redraw is bytes
over SSH and time taken from the keys; ``benchmarks/tui_responsiveness.py --checks`` measures the idle
output)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import pytest
from textual.widget import Widget
from textual.widgets import Label

from tests.tui.helpers import settle
from tui.app import KzcApp
from tui.widgets.status_bar import StatusBar

MakeApp = Callable[..., KzcApp]


async def test_the_status_line_updates_no_label_when_nothing_changed(
    make_app: MakeApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        bar = app.screen.query_one(StatusBar)
        now = app.now_ms()
        bar.show(app.status_info, now)  # the ages in it are frozen with the clock: the same text again
        updated: list[str] = []
        original = Label.update

        def counting(label: Label, *args: object, **kwargs: object) -> None:
            updated.append(str(label.id))
            original(label, *args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(Label, "update", counting)
        bar.show(app.status_info, now)
        assert updated == []
        bar.show(dataclasses.replace(app.status_info, note="reconnecting"), now)
        assert updated == []  # the right-hand part is a line of its own: no label, no layout of the screen
        assert "reconnecting" in app.screen.query_one("#status-last").render().__str__()


async def test_a_tick_redraws_no_widget_when_no_age_changed_and_only_the_ages_when_one_did(
    make_app: MakeApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    now = [1_700_000_010.0]  # the brokers registered a day ago: "1d", a second later too
    app = make_app()
    app.clock = lambda: now[0]
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        refreshed: list[tuple[str, bool]] = []
        original = Widget.refresh

        def counting(widget: Widget, *args: object, **kwargs: object) -> Widget:
            refreshed.append((f"{type(widget).__name__}#{widget.id}", bool(kwargs.get("layout"))))
            return original(widget, *args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(Widget, "refresh", counting)
        app.live.draw_screen()  # the clock did not move
        assert refreshed == []
        now[0] += 1.0
        app.live.draw_screen()  # one second later: the ages in seconds move, nothing else, and no layout
        assert {name for name, _ in refreshed} == {"TextLine#status-last", "EventLog#events"}
        assert not any(layout for _, layout in refreshed)
