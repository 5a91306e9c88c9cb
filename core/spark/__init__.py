"""Spark for every engine that runs on it (the checks' worker, the history questions): the session and its
defaults (``session.py``), the pyarrow-to-Spark schema mapping (``schema.py``) and the loopback servers the
tests and benchmarks start (``servers.py``). Every pyspark import is inside a function."""
