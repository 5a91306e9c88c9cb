"""An idle console sends nothing: the once-a-second ticks redraw only what changed (every redraw is bytes
over SSH and time taken from the keys; ``benchmarks/tui_responsiveness.py --checks`` measures the idle
output)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import pytest
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
        bar.show(app.status_info)  # the ages in it are frozen with the clock: the same text again
        updated: list[str] = []
        original = Label.update

        def counting(label: Label, *args: object, **kwargs: object) -> None:
            updated.append(str(label.id))
            original(label, *args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(Label, "update", counting)
        bar.show(app.status_info)
        assert updated == []
        bar.show(dataclasses.replace(app.status_info, note="reconnecting"))
        assert updated == ["status-last"]
