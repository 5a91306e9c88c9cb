"""Parsers for Kafka's znode formats, split by topic; import them through ``core.kafka_znodes``.

Modules: ``base`` (``Unreadable``, strict JSON readers), ``cluster`` (controller, cluster id, features,
migration, producer ids), ``brokers``, ``topics`` (assignments, partition states, deletion markers),
``admin`` (reassignment, preferred election, ISR and log-dir notifications), ``configs``, ``security``
(ACLs, delegation tokens, old consumer data), ``paths`` (``classify``), ``dispatch`` (``parse_znode``),
``explain`` and ``display`` (``decode_data``).
"""
