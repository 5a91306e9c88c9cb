"""The snapshot as a file: versioned JSON Lines that kzc reads back exactly and Spark reads directly.

``schema`` defines the lines (record kinds, one type per field, Spark's DDL), ``write`` writes a snapshot as
them, ``read`` builds a snapshot back from them. The format is specified in ``docs/snapshot-format.md``.
"""
