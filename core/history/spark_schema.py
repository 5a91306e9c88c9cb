"""The history tables' schemas as Spark sees them (pyspark imported only when a Spark engine runs)."""

from __future__ import annotations

from typing import Any

from core.spark.schema import spark_schema_of


def spark_row_schema() -> Any:
    """``core.history.schema.ROW_SCHEMA`` as a Spark ``StructType``."""
    from core.history.schema import ROW_SCHEMA

    return spark_schema_of(ROW_SCHEMA)


def spark_traffic_schema() -> Any:
    """``core.history.schema.TRAFFIC_SCHEMA`` as a Spark ``StructType``."""
    from core.history.schema import TRAFFIC_SCHEMA

    return spark_schema_of(TRAFFIC_SCHEMA)


def spark_group_lag_schema() -> Any:
    """``core.history.schema.GROUP_LAG_SCHEMA`` as a Spark ``StructType``."""
    from core.history.schema import GROUP_LAG_SCHEMA

    return spark_schema_of(GROUP_LAG_SCHEMA)
