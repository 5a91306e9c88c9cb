"""The brokers' own metrics, where operators export them with the Prometheus JMX exporter: each broker's URL
(``core.config.MetricsUrls``), one scrape per broker in parallel with a deadline (``scrape.py``), the exposition
text parsed by ``prometheus_client`` into Kafka's figures (``exposition.py``), and the per-second rates of two
scrapes with each figure's source (``rates.py``, ``reader.py``)."""
