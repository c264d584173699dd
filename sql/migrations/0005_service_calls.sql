-- The service's own calls (docs/usage-accounting.md): one row per call of a
-- saved query, on every transport, written in batches by the call log
-- (src/warehouse/call-log.ts) and read by service.call-stats. `caller` is the
-- credential's id, never its secret. Sorted by (caller, timestamp) so that a
-- caller who sees only its own calls reads only its range of the primary key.
-- The TTL here is the default of CALL_LOG_RETENTION_DAYS; migrate() sets the
-- configured one (call-log-retention.ts). A batch the call log writes again
-- after a failed insert carries the same insert_deduplication_token, which
-- this table's deduplication window turns into one write.
CREATE TABLE IF NOT EXISTS service_calls
(
    timestamp      DateTime64(6, 'UTC'),
    request_id     String,
    endpoint       LowCardinality(String),
    caller         String,
    protocol       LowCardinality(String),
    code           LowCardinality(String),
    cache          LowCardinality(String),
    rows_read      UInt64,
    bytes_read     UInt64,
    duration_ms    Float64,
    response_bytes UInt64
)
ENGINE = MergeTree
PARTITION BY toDate(timestamp)
ORDER BY (caller, timestamp)
TTL toDateTime(timestamp) + toIntervalDay(30)
SETTINGS non_replicated_deduplication_window = 1000;
