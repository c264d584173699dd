-- functions.invocation-stats: time-bucketed statistics of one project's
-- serverless function invocations (docs/endpoints.md, functions.invocation-stats).
--
-- Parameters:
--   now          the time the query runs (injected, so tests can pin it)
--   project      project reference; only its invocations are counted
--   function_id  one function, or '' for every function of the project
--   interval     5min | 15min | 1hr | 1day | 7day; any other value is 1day
--
-- interval -> (window, truncation unit):
--   5min (5 min, second), 15min (15 min, minute), 1hr (1 h, minute),
--   1day (1 day, hour), 7day (7 days, day).
-- Buckets run from trunc(now - window, unit) to trunc(now, unit) in steps of
-- one unit, and a record counts when trunc(timestamp, unit) is one of them.
-- That is exactly first_bucket <= timestamp < last_bucket + unit, written as a
-- range so the (project, function_id, timestamp) sort key prunes the scan;
-- records in the future fall outside it. Buckets with no counted record are
-- not returned. In UTC, truncating to a second, minute, hour or day is
-- toStartOfInterval by that many seconds. Each interval is named in each
-- multiIf (start-up checks that every allowed value of the proto is); the
-- last branch, 1day's, is not reached, since the service sends 1day for any
-- other value.
WITH
    {now:DateTime64(6, 'UTC')} AS query_now,
    {interval:String} AS requested_interval,
    multiIf(
        requested_interval = '5min', 1,
        requested_interval = '15min', 60,
        requested_interval = '1hr', 60,
        requested_interval = '1day', 3600,
        requested_interval = '7day', 86400,
        3600
    ) AS unit_seconds,
    multiIf(
        requested_interval = '5min', 5 * 60,
        requested_interval = '15min', 15 * 60,
        requested_interval = '1hr', 60 * 60,
        requested_interval = '1day', 86400,
        requested_interval = '7day', 7 * 86400,
        86400
    ) AS window_seconds,
    -- Bounds stay DateTime64: ClickHouse 26.7 prunes partitions wrongly when a
    -- DateTime64 column is compared with a DateTime (toStartOfInterval's type).
    toDateTime64(toStartOfInterval(query_now - toIntervalSecond(window_seconds), toIntervalSecond(unit_seconds)), 6, 'UTC') AS first_bucket,
    toDateTime64(toStartOfInterval(query_now, toIntervalSecond(unit_seconds)), 6, 'UTC') AS last_bucket,
    counted AS (
        SELECT
            toStartOfInterval(timestamp, toIntervalSecond(unit_seconds)) AS bucket,
            execution_time_ms,
            status_code
        FROM function_edge_logs
        WHERE project = {project:String}
          AND ({function_id:String} = '' OR function_id = {function_id:String})
          AND timestamp >= first_bucket
          AND timestamp < last_bucket + toIntervalSecond(unit_seconds)
    )
SELECT
    bucket AS timestamp,
    min(execution_time_ms) AS min_execution_time,
    max(execution_time_ms) AS max_execution_time,
    avg(execution_time_ms) AS avg_execution_time,
    quantile(0.95)(execution_time_ms) AS p95_execution_time,
    quantile(0.99)(execution_time_ms) AS p99_execution_time,
    count() AS count,
    countIf(status_code >= 400) AS error_count
FROM counted
GROUP BY bucket
ORDER BY bucket ASC
