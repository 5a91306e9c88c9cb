"""pyarrow schemas as Spark sees them (pyspark imported only when a Spark engine runs)."""

from __future__ import annotations

from typing import Any


def spark_schema_of(schema: Any) -> Any:
    """A pyarrow schema (e.g. ``core.history.schema``'s) as a Spark ``StructType`` (the same columns and types)."""
    from pyspark.sql import types as T

    kinds: dict[str, Any] = {
        "int64": T.LongType(), "int32": T.IntegerType(), "string": T.StringType(), "double": T.DoubleType(),
        "list<item: int32>": T.ArrayType(T.IntegerType()),
    }  # fmt: skip
    return T.StructType([T.StructField(f.name, kinds[str(f.type)], f.nullable) for f in schema])
