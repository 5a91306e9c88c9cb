"""Partition reassignment: plans (minimal movement, Kafka's --generate), apply through ZooKeeper as
Kafka's tools do, throttles, status and progress."""
