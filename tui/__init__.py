"""The Textual console of kzc: a thin layer that talks to ZooKeeper, Kafka and Spark only through ``core``."""
