"""Cluster-wide consistency checks: the catalog, a plain-Python engine, a Spark engine, and the pipeline.

``core.consistency.pipeline.run_checks`` is the entry point; ``docs/checks.md`` documents every check.
pyspark is only ever imported inside the Spark worker process, never when this package is imported.
"""
