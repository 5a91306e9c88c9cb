"""The brokers' metrics in the console (``core.metrics`` through the backend's ``broker_metrics``, served by a local
HTTP server in the test from recorded exporter output): the cluster screen's traffic line says the bytes out,
and why not when a broker's endpoint fails; the broker screen shows its metrics, or why its endpoint failed."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from core.config import MetricsUrls
from core.testdata.traffic import SyntheticTraffic
from tests.tui.helpers import settle
from tests.tui.test_traffic_columns import NOW_MS, WARM_HEALTHY, _healthy, _text
from tui.app import KzcApp
from tui.messages import BrokerChosen
from tui.screens.broker import BrokerScreen
from tui.screens.cluster import ClusterScreen

MakeApp = Callable[..., KzcApp]
FIXTURES = Path(__file__).parents[1] / "unit" / "fixtures" / "metrics"
# 3.9.1, then the same broker 500 messages later (no fetch in between: bytes out did not move)
SCRAPES = [(FIXTURES / f"kafka-3.9.1-{n}.prom").read_text() for n in ("a", "b")]


class _Exporter(http.server.BaseHTTPRequestHandler):
    """``/b{id}``: the first scrape, then the second for every later one; ``missing`` ids answer 404."""

    served: dict[str, int] = {}
    missing: set[str] = set()

    def do_GET(self) -> None:
        if self.path in self.missing:
            body, code = b"not found", 404
        else:
            count = self.served[self.path] = self.served.get(self.path, 0) + 1
            body, code = SCRAPES[min(count, 2) - 1].encode(), 200
        self.send_response(code)
        self.send_header("Content-Type", "text/plain; version=0.0.4")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def exporter() -> Iterator[MetricsUrls]:
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Exporter)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield MetricsUrls(template=f"http://127.0.0.1:{httpd.server_address[1]}/b{{id}}")
    finally:
        httpd.shutdown()
        httpd.server_close()
        _Exporter.served.clear()
        _Exporter.missing.clear()


async def test_traffic_line_says_the_bytes_out_and_why_not(make_app: MakeApp, exporter: MetricsUrls) -> None:
    traffic = SyntheticTraffic({WARM_HEALTHY: 100.0}, NOW_MS - 60_000)
    app = make_app(snapshot=_healthy(), traffic=traffic, metrics_url=exporter)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ClusterScreen)
        reads = app.screen._traffic_reads
        assert reads is not None
        # one scrape: the exporters' one-minute rates, 4,300.3 bytes/s on each of the 6 brokers
        assert _text(app, "#traffic-line").endswith("· out 25.2 KiB/s")
        reads.now()
        await settle(pilot)
        assert _text(app, "#traffic-line").startswith("traffic in: 100.0/s · 9.8 KiB/s · out idle · traffic over 5s")
        _Exporter.missing.add("/b2")
        reads.now()
        await settle(pilot)
        line = _text(app, "#traffic-line")
        assert "· out ? (broker 2's metrics: HTTP 404 Not Found) ·" in line  # never a partial sum


async def test_broker_screen_shows_its_metrics_or_why_not(make_app: MakeApp, exporter: MetricsUrls) -> None:
    _Exporter.missing.add("/b2")
    app = make_app(snapshot=_healthy(), traffic=SyntheticTraffic({}, NOW_MS - 60_000), metrics_url=exporter)
    async with app.run_test(size=(160, 60)) as pilot:
        await settle(pilot)
        app.post_message(BrokerChosen(1))
        await settle(pilot)
        assert isinstance(app.screen, BrokerScreen)
        text = _text(app, "#broker-traffic .traffic-text")
        assert "Broker 1 metrics (http://127.0.0.1:" in text
        # the cluster screen scraped first: this is the second scrape, its rates count deltas between the two
        for line in (
            "bytes out     0 B/s (idle: nothing over",
            "produce p99   28.3 ms",
            "fetch p99     527.0 ms (consumers' fetches)",
            "idle          request handlers ",
            "ISR           shrinks 0.0/s (idle: nothing over",
            "under-replicated (it leads) 0; ZooKeeper's ISRs: 1",
            "! broker 1 counts 0 under-replicated partition(s) it leads; ZooKeeper's ISRs say 1",
        ):
            assert line in text, text
        await pilot.press("escape")
        await settle(pilot)
        app.post_message(BrokerChosen(2))
        await settle(pilot)
        assert "Broker 2 metrics (http://127.0.0.1:" in _text(app, "#broker-traffic .traffic-text")
        assert "  unavailable: HTTP 404 Not Found" in _text(app, "#broker-traffic .traffic-text")
