-- The service's own calls, aggregated (docs/usage-accounting.md): per minute,
-- caller, saved query, protocol, code and cache outcome, the number of calls,
-- what they read and sent, and their latency histogram (16 logarithmic
-- buckets per doubling, each with its count and the sum of its durations in
-- ms: src/warehouse/latency-histogram.ts). The call log
-- (src/warehouse/call-log.ts) writes the aggregates it holds every flush, so
-- one key and minute may have several rows; service.call-stats sums them.
-- `caller` is the credential's id, never its secret. Sorted by (caller,
-- timestamp) so that a caller who sees only its own calls reads only its
-- range of the primary key. The TTL here is the default of
-- CALL_LOG_RETENTION_DAYS; migrate() sets the configured one
-- (call-log-retention.ts). A batch written again after a failed insert
-- carries the same insert_deduplication_token, which this table's
-- deduplication window turns into one write. `service_calls` (0005), one row
-- a call, is no longer written; its rows stay until its TTL removes them.
CREATE TABLE IF NOT EXISTS service_call_aggregates
(
    timestamp      DateTime('UTC'),
    caller         String,
    endpoint       LowCardinality(String),
    protocol       LowCardinality(String),
    code           LowCardinality(String),
    cache          LowCardinality(String),
    calls          UInt64,
    rows_read      UInt64,
    bytes_read     UInt64,
    response_bytes UInt64,
    latency_buckets Array(UInt16),
    latency_counts Array(UInt64),
    latency_sums   Array(Float64)
)
ENGINE = MergeTree
PARTITION BY toDate(timestamp)
ORDER BY (caller, timestamp)
TTL toDateTime(timestamp) + toIntervalDay(30)
SETTINGS non_replicated_deduplication_window = 1000;
