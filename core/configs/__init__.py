"""Topic (and broker) config changes: read, check as Kafka's LogConfig does, diff, write as AdminZkClient does
or through IncrementalAlterConfigs."""
