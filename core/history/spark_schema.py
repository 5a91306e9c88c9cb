"""The history rows' schema as Spark sees it (pyspark imported only when a Spark engine runs)."""

from __future__ import annotations

from typing import Any


def spark_row_schema() -> Any:
    """``core.history.schema.ROW_SCHEMA`` as a Spark ``StructType``."""
    from pyspark.sql import types as T

    from core.history.schema import ROW_SCHEMA

    kinds: dict[str, Any] = {
        "int64": T.LongType(), "int32": T.IntegerType(), "string": T.StringType(),
        "list<item: int32>": T.ArrayType(T.IntegerType()),
    }  # fmt: skip
    return T.StructType([T.StructField(f.name, kinds[str(f.type)], f.nullable) for f in ROW_SCHEMA])
