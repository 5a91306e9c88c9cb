"""The brokers' Prometheus metrics (core.metrics): recorded exporter output (tests/unit/fixtures/metrics, scraped
from `kzc sandbox up --metrics` brokers, 3.9.1 before and after 500 more messages, and 0.10.2.2), the rates of
two scrapes, a counter that goes backwards, and hostile endpoints on a local HTTP server."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.config import MetricsUrls, parse_metrics_urls
from core.config_file import load_config
from core.errors import ConfigError, UsageError
from core.metrics.exposition import Meter, MetricsFormatError, parse_exposition
from core.metrics.rates import COUNT_DELTA, MEAN, ONE_MINUTE, figures, meter_rate
from core.metrics.reader import MetricsReader
from core.metrics.scrape import scrape_all
from core.snapshot.health import under_replicated_by_leader
from core.testdata import builder as b

FIXTURES = Path(__file__).parent / "fixtures" / "metrics"
BEFORE = (FIXTURES / "kafka-3.9.1-a.prom").read_text()
AFTER = (FIXTURES / "kafka-3.9.1-b.prom").read_text()  # 500 more messages of 100 bytes to "orders"
OLD = (FIXTURES / "kafka-0.10.2.2.prom").read_text()


def test_a_real_scrape_gives_every_figure() -> None:
    e = parse_exposition(BEFORE)
    assert e.meters["bytes_in"] == Meter(283804.0, pytest.approx(3910.87, abs=0.01))
    assert e.meters["messages_in"].count == 2526.0
    assert e.meters["bytes_out"].count == 268920.0
    assert e.topics["orders"]["messages_in"].count == 2400.0
    assert e.topics["clicks"]["bytes_out"] == Meter(None, None)  # never fetched: no meter yet
    assert e.p99_ms == {"produce": pytest.approx(28.36), "fetch": 527.0}
    assert e.network_idle == pytest.approx(0.99786, abs=1e-5)
    assert e.request_idle.count == 95860303384.0 and e.request_idle_mean == pytest.approx(0.99098, abs=1e-5)
    assert e.meters["isr_shrinks"].count == 0.0 and e.meters["isr_expands"].count == 0.0
    assert e.under_replicated == 0


def test_kafka_0_10_2_is_read_too() -> None:
    e = parse_exposition(OLD)
    assert e.meters["bytes_in"].count == 0.0 and e.p99_ms["produce"] == 0.0 and e.under_replicated == 0


def test_rates_are_count_deltas_over_the_window() -> None:
    f = figures(parse_exposition(BEFORE), parse_exposition(AFTER), (0, 10_000))
    assert f.rates["messages_in"].value == pytest.approx(50.0)  # 500 messages in 10 s
    assert f.rates["messages_in"].source == COUNT_DELTA and f.rates["messages_in"].window_s == 10.0
    assert f.topics["orders"]["messages_in"].value == pytest.approx(50.0)
    assert f.topics["clicks"]["messages_in"].value == 0.0
    assert f.rates["bytes_in"].value == pytest.approx((338798 - 283804) / 10)
    assert f.request_idle_pct.source == COUNT_DELTA and 0 < (f.request_idle_pct.value or 0) <= 100
    assert not f.restarted


def test_without_an_earlier_scrape_the_one_minute_rate_says_so() -> None:
    f = figures(None, parse_exposition(AFTER), None)
    assert f.rates["bytes_in"].source == ONE_MINUTE and f.rates["bytes_in"].value == pytest.approx(3602.41, abs=0.01)


def test_a_counter_that_goes_backwards_is_a_restart_never_a_negative_rate() -> None:
    f = figures(parse_exposition(AFTER), parse_exposition(BEFORE), (0, 10_000))
    assert f.restarted
    assert f.rates["messages_in"].source == ONE_MINUTE and (f.rates["messages_in"].value or 0) >= 0
    assert "restarted" in (f.rates["messages_in"].why or "")
    gone = meter_rate(Meter(100.0, None), Meter(5.0, None), (0, 10_000))
    assert gone.value is None and "restarted" in (gone.why or "")
    # the next window counts from the new value
    assert meter_rate(Meter(5.0, None), Meter(25.0, None), (0, 10_000)).value == 2.0


def test_without_one_minute_rates_the_idle_percent_is_the_mean_since_start() -> None:
    text = "\n".join(line for line in AFTER.splitlines() if "oneminuterate" not in line)
    f = figures(None, parse_exposition(text), None)
    assert f.rates["bytes_in"].value is None and "second scrape" in (f.rates["bytes_in"].why or "")
    assert f.request_idle_pct.source == MEAN


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("<!DOCTYPE html><html><body>Grafana</body></html>", "HTML"),
        ("{{{ not metrics", "no Kafka broker metrics"),
        ("kafka_server_brokertopicmetrics_bytesin_total{ 12", "not the Prometheus text format"),
        ("# TYPE up gauge\nup 1\n", "no Kafka broker metrics"),
        ("", "no Kafka broker metrics"),
    ],
)
def test_what_is_not_a_brokers_metrics_says_what_it_is(text: str, says: str) -> None:
    with pytest.raises(MetricsFormatError, match=says):
        parse_exposition(text)


def test_metrics_urls_template_and_per_broker() -> None:
    urls = parse_metrics_urls(["http://{host}:7071/metrics", "2=http://10.0.0.2:9404/m"])
    assert urls.url(1, "kafka-1") == "http://kafka-1:7071/metrics"
    assert urls.url(2, "kafka-2") == "http://10.0.0.2:9404/m"
    assert urls.url(3, "::1") == "http://[::1]:7071/metrics"
    assert urls.url(3, None) is None
    assert parse_metrics_urls(["http://m/{id}"]).url(7, None) == "http://m/7"
    assert MetricsUrls(brokers=((1, "http://a/m"),)).url(2, "h") is None


@pytest.mark.parametrize(
    ("values", "says"),
    [
        (["ftp://x/metrics"], "http:// or https://"),
        (["http://{hostname}:7071/metrics"], "unknown field"),
        (["http://{host:7071/metrics"], "literal braces"),
        (["http://a/m", "http://b/m"], "a template is already given"),
        (["1=http://a/m", "1=http://b/m"], "broker 1 twice"),
    ],
)
def test_bad_metrics_urls_are_refused(values: list[str], says: str) -> None:
    with pytest.raises(UsageError, match=says):
        parse_metrics_urls(values)


def test_zookeepers_under_replicated_count_per_leader() -> None:
    snap = b.snapshot(
        brokers=(1, 2, 3),
        topics=[
            b.topic("t", {0: [1, 2, 3], 1: [2, 3, 1], 2: [1, 2, 3]}, states={0: b.state(1, [1, 2]), 1: b.state(2, [2])})
        ],
    )
    assert under_replicated_by_leader(snap) == {1: 1, 2: 1, 3: 0}


class _Endpoints(http.server.BaseHTTPRequestHandler):
    """/ok: a real scrape; /html: a web page; /missing: 404; /silent: no answer until the test ends."""

    release = threading.Event()

    def do_GET(self) -> None:
        if self.path == "/silent":
            self.release.wait(30)
            return
        body, kind, code = {
            "/ok": (AFTER, "text/plain; version=0.0.4", 200),
            "/html": ("<html><body>login</body></html>", "text/html", 200),
            "/garbage": ("\x00\x01 definitely { not metrics", "text/plain", 200),
        }.get(self.path, ("not found", "text/plain", 404))
        data = body.encode()
        self.send_response(code)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[str]:
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Endpoints)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        _Endpoints.release.set()
        httpd.shutdown()
        httpd.server_close()
        _Endpoints.release.clear()


def test_each_failing_endpoint_says_why_and_the_others_still_show(server: str) -> None:
    urls = parse_metrics_urls(
        [f"1={server}/ok", f"2={server}/html", f"3={server}/missing", f"4={server}/silent", f"5={server}/garbage",
         "6=http://127.0.0.1:1/metrics"]
    )  # fmt: skip
    reader = MetricsReader(urls, timeout=0.5)
    got = {m.broker: m for m in reader.read(b.snapshot(brokers=(1, 2, 3, 4, 5, 6, 7)))}
    assert got[1].failure is None and got[1].figures is not None
    assert got[1].figures.rates["messages_in"].source == ONE_MINUTE
    assert "HTML" in (got[2].failure or "")
    assert got[3].failure == "HTTP 404 Not Found"
    assert got[4].failure == "no answer within 0.5 s"
    assert "no Kafka broker metrics" in (got[5].failure or "")
    assert "connection refused" in (got[6].failure or "")
    assert "no metrics URL" in (got[7].failure or "")
    # A second read gives count deltas (the same text here: nothing moved, a rate of zero, not unknown).
    again = {m.broker: m for m in reader.read(b.snapshot(brokers=(1,)), only=1)}
    assert again[1].figures is not None and again[1].figures.rates["messages_in"].source == COUNT_DELTA
    assert again[1].figures.rates["messages_in"].value == 0.0


def test_scrape_all_of_nothing_is_nothing() -> None:
    assert scrape_all({}) == {}


def test_the_brokers_count_beside_zookeepers_disagreement_is_a_line(server: str) -> None:
    snap = b.snapshot(brokers=(1, 2, 3), topics=[b.topic("t", {0: [1, 2, 3]}, states={0: b.state(1, [1])})])
    [m] = MetricsReader(parse_metrics_urls([f"1={server}/ok"]), timeout=2.0).read(snap, only=1)
    assert m.figures is not None and m.figures.under_replicated == 0 and m.zookeeper_under_replicated == 1
    assert m.disagreement is not None and "counts 0" in m.disagreement and "say 1" in m.disagreement
    assert m.to_json()["disagreement"] == m.disagreement


def test_a_contexts_metrics_url_is_a_template_or_a_table(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(
        '[contexts.a]\nzookeeper = "z:2181"\nmetrics_url = "http://{host}:7071/metrics"\n'
        '[contexts.b]\nzookeeper = "z:2181"\nmetrics_url = { 1 = "http://10.0.0.1:7071/metrics", 2 = "http://x/m" }\n'
    )
    config = load_config(path)
    assert config.contexts["a"].metrics_url == MetricsUrls("http://{host}:7071/metrics")
    assert config.contexts["b"].metrics_url == MetricsUrls(
        None, ((1, "http://10.0.0.1:7071/metrics"), (2, "http://x/m"))
    )
    path.write_text('[contexts.c]\nmetrics_url = { broker1 = "http://x/m" }\n')
    with pytest.raises(ConfigError, match="metrics_url must be a template string"):
        load_config(path)
    path.write_text('[contexts.c]\nmetrics_url = "http://{hostname}/m"\n')
    with pytest.raises(ConfigError, match="context 'c': metrics_url .*unknown field"):
        load_config(path)


def test_a_topic_meter_created_within_the_window_counts_from_zero() -> None:
    before = "\n".join(line for line in BEFORE.splitlines() if 'topic="orders"' not in line)
    f = figures(parse_exposition(before), parse_exposition(AFTER), (0, 10_000))
    assert f.topics["orders"]["messages_in"].value == pytest.approx(290.0)  # all 2900 of its count
    assert f.topics["orders"]["messages_in"].source == COUNT_DELTA
