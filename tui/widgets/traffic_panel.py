"""A broker's or topic's traffic on its screen: a line with its messages and bytes in per second (and, for a
broker, each log dir with its used bytes, growth per hour and time until full, or why not), and Textual's own
``Sparkline`` of its messages in over the last ticks (``core.traffic.ticker``). Polled in a worker while the
screen is current (``tui.size_reads.PolledReads``); the screen only draws what the worker derived.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Sparkline, Static

from core.console.protocols import TrafficSource
from core.human_size import human_size as size_text
from core.human_time import age_text, clock_text
from core.traffic.rates import Rate, rate_text
from core.traffic.ticker import TICK_S, TrafficView
from core.traffic.view import Row
from tui.size_reads import PolledReads, traffic_reads


@dataclass(frozen=True)
class PanelContent:
    """What the panel draws: its lines and the sparkline's points (known ticks only)."""

    lines: list[str]
    points: list[float]


def dir_text(row: Row) -> str:
    """``/data/1 used 1.2 GiB · +40.0 MiB/h · full in 3d 4h`` (or why the growth or time is unknown)."""
    extra = row.extra
    if extra.get("used_bytes") is None:
        return f"{row.log_dir or 'log dirs'}: ? {extra.get('growth_unknown')}"
    growth = extra.get("growth_bytes_per_hour")
    text = f"{row.log_dir} used {size_text(extra['used_bytes'])} · "
    text += f"+{size_text(int(growth))}/h" if growth is not None else f"growth ? ({extra.get('growth_unknown')})"
    full = extra.get("full_in_s")
    return text + (
        f" · full in {age_text(full)}" if full is not None else f" · full in ? ({extra.get('full_in_unknown')})"
    )


def rates_line(what: str, rates: tuple[Rate, Rate], traffic: TrafficView) -> str:
    """``in: 400.0/s · 39.1 KiB/s · over 5s, read 22:13:20``, ``?`` with why."""
    messages, bytes_in = rates
    window = traffic.window_s()
    if not traffic.rated or traffic.note is not None or window is None:
        return traffic.footer(traffic.at_ms)
    when = f"over {age_text(window)}, read {clock_text(traffic.at_ms)}"
    text = f"{what}: {rate_text(messages, 'messages')} · {rate_text(bytes_in, 'bytes')} · {when}"
    why = messages.unknown or bytes_in.unknown
    return text + (f" · ? {why}" if why else "")


def history_caption(history: list[float | None]) -> str:
    """What the sparkline covers: how many ticks, and the unknown ones it leaves out."""
    known = [v for v in history if v is not None]
    if not known:
        return "messages in, last minutes: no known tick yet"
    text = f"messages in over the last {age_text(len(history) * TICK_S)}: {min(known):,.1f} to {max(known):,.1f}/s"
    missing = len(history) - len(known)
    return text + (f" ({missing} unknown ticks left out)" if missing else "")


class TrafficPanel(Vertical):
    """The panel (see the module docstring); ``derive`` (worker thread) gives its content from a tick."""

    DEFAULT_CSS = """
    TrafficPanel { height: auto; padding: 0 1; }
    TrafficPanel Sparkline { height: 2; margin: 0 0; }
    """

    def __init__(self, derive: Callable[[TrafficView], PanelContent], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.derive = derive
        self.content: PanelContent | None = None
        self.reads: PolledReads[TrafficView, PanelContent] | None = None

    def compose(self) -> ComposeResult:
        yield Static("traffic: reading…", classes="traffic-text")
        spark = Sparkline([], classes="traffic-spark")
        spark.display = False  # no known tick yet: an empty sparkline would draw a flat line, read as 0
        yield spark

    def start(self, screen: Screen[Any], source: TrafficSource) -> None:
        """Poll ``source`` while ``screen`` is current."""
        self.reads = traffic_reads(screen, source, self.derive, self._read)
        self.reads.start()

    def resume(self) -> None:
        """The screen is current again."""
        if self.reads is not None:
            self.reads.resume()

    def _read(self, traffic: TrafficView | None, content: PanelContent | None, error: str | None) -> None:
        if error is not None:
            self.query_one(".traffic-text", Static).update(f"traffic: {error}")
            return
        if content is None:
            return
        self.content = content
        self.query_one(".traffic-text", Static).update("\n".join(content.lines))
        spark = self.query_one(".traffic-spark", Sparkline)
        spark.data = content.points
        spark.display = bool(content.points)
