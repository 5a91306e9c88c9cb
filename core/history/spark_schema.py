"""The history tables' schemas as Spark sees them (pyspark imported only when a Spark engine runs)."""

from __future__ import annotations

from typing import Any


def spark_schema_of(schema: Any) -> Any:
    """A pyarrow schema of ``core.history.schema`` as a Spark ``StructType`` (the same columns and types)."""
    from pyspark.sql import types as T

    kinds: dict[str, Any] = {
        "int64": T.LongType(), "int32": T.IntegerType(), "string": T.StringType(), "double": T.DoubleType(),
        "list<item: int32>": T.ArrayType(T.IntegerType()),
    }  # fmt: skip
    return T.StructType([T.StructField(f.name, kinds[str(f.type)], f.nullable) for f in schema])


def spark_row_schema() -> Any:
    """``core.history.schema.ROW_SCHEMA`` as a Spark ``StructType``."""
    from core.history.schema import ROW_SCHEMA

    return spark_schema_of(ROW_SCHEMA)


def spark_traffic_schema() -> Any:
    """``core.history.schema.TRAFFIC_SCHEMA`` as a Spark ``StructType``."""
    from core.history.schema import TRAFFIC_SCHEMA

    return spark_schema_of(TRAFFIC_SCHEMA)
