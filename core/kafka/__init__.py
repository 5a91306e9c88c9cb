"""Kafka's rules and formats, pure (no I/O): znode formats, topic names and configs, assignment, Java semantics."""
