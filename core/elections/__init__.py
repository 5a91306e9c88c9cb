"""Leader elections: preferred (ZooKeeper znode or ElectLeaders) and unclean (ElectLeaders), previewed."""
