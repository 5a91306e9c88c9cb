"""The fleet: every cluster of the config file at once (``kzc fleet``), one row each, worst first."""
