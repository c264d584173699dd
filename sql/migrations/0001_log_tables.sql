-- The nine log tables that log shippers write (README, "Your own logs").
--
-- A shipper inserts only id, timestamp, event_message, metadata (JSON text) and,
-- on five of the tables, project. Every column a saved query filters or
-- aggregates on is MATERIALIZED here, once at insert, so no query parses JSON
-- per row. Each table is sorted by (project, timestamp): a one-project query
-- reads only that project's range of the primary key, and daily partitions let
-- a time window skip whole days.

CREATE TABLE IF NOT EXISTS edge_logs
(
    id            String,
    timestamp     DateTime64(6, 'UTC'),
    event_message String,
    project       String,
    metadata      String,
    request_path  String MATERIALIZED JSONExtractString(metadata, 1, 'request', 1, 'path'),
    request_url   String MATERIALIZED JSONExtractString(metadata, 1, 'request', 1, 'url'),
    status_code   UInt16 MATERIALIZED JSONExtract(metadata, 1, 'response', 1, 'status_code', 'UInt16')
)
ENGINE = MergeTree
PARTITION BY toDate(timestamp)
ORDER BY (project, timestamp);

CREATE TABLE IF NOT EXISTS function_edge_logs
(
    id                String,
    timestamp         DateTime64(6, 'UTC'),
    event_message     String,
    metadata          String,
    project           String  MATERIALIZED JSONExtractString(metadata, 1, 'project_ref'),
    function_id       String  MATERIALIZED JSONExtractString(metadata, 1, 'function_id'),
    execution_time_ms Float64 MATERIALIZED JSONExtract(metadata, 1, 'execution_time_ms', 'Float64'),
    status_code       UInt16  MATERIALIZED JSONExtract(metadata, 1, 'response', 1, 'status_code', 'UInt16')
)
ENGINE = MergeTree
PARTITION BY toDate(timestamp)
ORDER BY (project, function_id, timestamp);

CREATE TABLE IF NOT EXISTS function_logs
(
    id            String,
    timestamp     DateTime64(6, 'UTC'),
    event_message String,
    metadata      String,
    project       String MATERIALIZED JSONExtractString(metadata, 1, 'project_ref')
)
ENGINE = MergeTree
PARTITION BY toDate(timestamp)
ORDER BY (project, timestamp);

CREATE TABLE IF NOT EXISTS postgres_logs
(
    id            String,
    timestamp     DateTime64(6, 'UTC'),
    event_message String,
    project       String,
    metadata      String
)
ENGINE = MergeTree
PARTITION BY toDate(timestamp)
ORDER BY (project, timestamp);

CREATE TABLE IF NOT EXISTS auth_logs
(
    id            String,
    timestamp     DateTime64(6, 'UTC'),
    event_message String,
    project       String,
    metadata      String
)
ENGINE = MergeTree
PARTITION BY toDate(timestamp)
ORDER BY (project, timestamp);

CREATE TABLE IF NOT EXISTS realtime_logs
(
    id            String,
    timestamp     DateTime64(6, 'UTC'),
    event_message String,
    metadata      String,
    project       String MATERIALIZED JSONExtractString(metadata, 1, 'project')
)
ENGINE = MergeTree
PARTITION BY toDate(timestamp)
ORDER BY (project, timestamp);

CREATE TABLE IF NOT EXISTS storage_logs
(
    id            String,
    timestamp     DateTime64(6, 'UTC'),
    event_message String,
    metadata      String,
    project       String MATERIALIZED JSONExtractString(metadata, 1, 'project')
)
ENGINE = MergeTree
PARTITION BY toDate(timestamp)
ORDER BY (project, timestamp);

CREATE TABLE IF NOT EXISTS postgrest_logs
(
    id            String,
    timestamp     DateTime64(6, 'UTC'),
    event_message String,
    project       String,
    metadata      String
)
ENGINE = MergeTree
PARTITION BY toDate(timestamp)
ORDER BY (project, timestamp);

CREATE TABLE IF NOT EXISTS pgbouncer_logs
(
    id            String,
    timestamp     DateTime64(6, 'UTC'),
    event_message String,
    project       String,
    metadata      String
)
ENGINE = MergeTree
PARTITION BY toDate(timestamp)
ORDER BY (project, timestamp);
