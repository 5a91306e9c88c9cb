"""``TopicPartition``: a partition named by its topic and number, ``(topic, partition)``, as Kafka's
``org.apache.kafka.common.TopicPartition``; kzc's one spelling of it (a second definition fails
tests/unit/test_one_definition.py). confluent-kafka's class of the same name is the client's own type, used only
where a request is handed to librdkafka."""

from __future__ import annotations

TopicPartition = tuple[str, int]
