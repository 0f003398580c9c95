"""Writing one part file of a topic (docs/export.md, "Formats"): Parquet through pyarrow, or
gzip CSV, to a local temporary file the storage then uploads. Rows come in column batches and go
to disk batch by batch (one Parquet row group, or one CSV block, each), so memory holds one
batch whatever the part's size.

CSV: UTF-8 without a byte-order mark, comma-separated, LF line ends, a header row; text values
in double quotes (a quote doubled inside), an empty unquoted value is a null; timestamps as ISO
8601 UTC with microseconds and a Z; decimals with their six places; booleans true/false.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq

from raw_export import columns

_TYPES = {
    columns.STRING: pa.string(),
    columns.TIMESTAMP: pa.timestamp("us", tz="UTC"),
    columns.DECIMAL: pa.decimal128(columns.DECIMAL_PRECISION, columns.DECIMAL_SCALE),
    columns.INT: pa.int64(),
    columns.FLOAT: pa.float64(),
    columns.BOOL: pa.bool_(),
}
ISO_UTC = "%Y-%m-%dT%H:%M:%SZ"  # Arrow's %S carries the microseconds


def arrow_schema(topic: str) -> pa.Schema:
    """The topic's Parquet schema, the schema version in its metadata."""
    return pa.schema([pa.field(c.name, _TYPES[c.type]) for c in columns.TOPICS[topic]],
                     metadata={"schema_version": str(columns.SCHEMA_VERSION),
                               "topic": topic})


def record_batch(topic: str, rows: Sequence[tuple]) -> pa.RecordBatch:
    """A batch from rows of the topic's columns, in order."""
    schema = arrow_schema(topic)
    return pa.RecordBatch.from_arrays(
        [pa.array(values, type=field.type)
         for field, values in zip(schema, zip(*rows, strict=True), strict=True)],
        schema=schema)


# Rows per Parquet row group: large enough for readers to skip and scan well (DuckDB and
# ClickHouse like 100k+), small enough that a group's columns stay a few tens of MB in memory.
ROW_GROUP_ROWS = 100_000


class PartFile:
    """One part being written to a temporary file; `close()` returns its path."""

    def __init__(self, *, topic: str, fmt: str, directory: str | None = None):
        self.topic, self.fmt = topic, fmt
        self.rows = 0
        self._open = True
        self._pending: list[pa.RecordBatch] = []
        self._pending_rows = 0
        handle, name = tempfile.mkstemp(prefix=f"{topic}-", suffix=f".{fmt}", dir=directory)
        os.close(handle)
        self.path = Path(name)
        schema = arrow_schema(topic)
        if fmt == "parquet":
            # Snappy: what every warehouse's Parquet reader takes (BigQuery, Snowflake,
            # ClickHouse, DuckDB, Spark), at a fraction of zstd's CPU.
            self._writer = pq.ParquetWriter(self.path, schema, compression="snappy")
        elif fmt == "csv":
            self._sink = pa.CompressedOutputStream(str(self.path), "gzip")
            self._writer = pa_csv.CSVWriter(
                self._sink, _csv_schema(schema),
                write_options=pa_csv.WriteOptions(include_header=True, delimiter=",",
                                                  quoting_style="needed"))
        else:
            raise ValueError(f"unknown format {fmt!r}")

    def write(self, batch: pa.RecordBatch) -> None:
        self.rows += batch.num_rows
        if self.fmt == "csv":
            self._writer.write_batch(_as_csv(batch))
            return
        self._pending.append(batch)
        self._pending_rows += batch.num_rows
        if self._pending_rows >= ROW_GROUP_ROWS:
            self._flush()

    def _flush(self) -> None:
        if self._pending:
            self._writer.write_table(pa.Table.from_batches(self._pending),
                                     row_group_size=max(self._pending_rows, 1))
            self._pending, self._pending_rows = [], 0

    def close(self) -> Path:
        if self._open:
            self._open = False
            if self.fmt == "parquet":
                self._flush()
            self._writer.close()
            if self.fmt == "csv":
                self._sink.close()
        return self.path

    def discard(self) -> None:
        """Drop the part (an upload failed, or the read did)."""
        try:
            if self._open:
                self._open = False
                self._writer.close()
                if self.fmt == "csv":
                    self._sink.close()
        finally:
            self.path.unlink(missing_ok=True)


def _csv_schema(schema: pa.Schema) -> pa.Schema:
    return pa.schema([pa.field(f.name, pa.string()) if pa.types.is_timestamp(f.type) else f
                      for f in schema])


def _as_csv(batch: pa.RecordBatch) -> pa.RecordBatch:
    arrays = [pc.strftime(array, format=ISO_UTC) if pa.types.is_timestamp(array.type)
              else array for array in batch.columns]
    return pa.RecordBatch.from_arrays(arrays, schema=_csv_schema(batch.schema))
