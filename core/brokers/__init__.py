"""Talking to Kafka brokers over the Kafka protocol: the AdminClient wrapper, metadata and a probe."""
