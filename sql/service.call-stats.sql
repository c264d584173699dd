-- service.call-stats: time-bucketed counts, latencies and reads of the
-- service's own calls, one row per bucket and saved query
-- (docs/usage-accounting.md, service.call-stats).
--
-- Parameters:
--   now       the time the query runs (injected, so tests can pin it)
--   interval  hourly | daily | minutely (validated before the query runs)
--   endpoint  a saved query's name; empty means every one
--   caller    a credential's id; empty means every caller (a key-file key or
--             a token has it fixed to its own id before the query runs)
--
-- interval -> (window, bucket) as usage.api-counts: hourly (1 h, hour), daily
-- (7 days, day), minutely (60 min, minute); each is named in each multiIf
-- (start-up checks that every allowed value of the proto is), and the last
-- branch is not reached. Records before now - window are excluded. A call is
-- an error when its code is not ok, and a cache hit when it was answered from
-- the cache, fresh or stale. The percentiles are ClickHouse's quantile
-- (exact, interpolated between the two nearest values, up to 8192 calls per
-- bucket; sampled beyond).
WITH
    {now:DateTime64(6, 'UTC')} AS query_now,
    {interval:String} AS requested_interval,
    {endpoint:String} AS wanted_endpoint,
    {caller:String} AS wanted_caller,
    multiIf(
        requested_interval = 'hourly', 60 * 60,
        requested_interval = 'daily', 7 * 86400,
        requested_interval = 'minutely', 60 * 60,
        60 * 60
    ) AS window_seconds,
    multiIf(
        requested_interval = 'hourly', 3600,
        requested_interval = 'daily', 86400,
        requested_interval = 'minutely', 60,
        3600
    ) AS bucket_seconds
SELECT
    toStartOfInterval(service_calls.timestamp, toIntervalSecond(bucket_seconds)) AS timestamp,
    service_calls.endpoint AS endpoint,
    count() AS calls,
    countIf(code != 'ok') AS errors,
    countIf(cache IN ('hit', 'stale')) AS cache_hits,
    quantile(0.5)(duration_ms) AS p50_duration_ms,
    quantile(0.95)(duration_ms) AS p95_duration_ms,
    sum(rows_read) AS rows_read,
    sum(bytes_read) AS bytes_read
FROM service_calls
WHERE service_calls.timestamp >= query_now - toIntervalSecond(window_seconds)
  AND (wanted_endpoint = '' OR service_calls.endpoint = wanted_endpoint)
  AND (wanted_caller = '' OR caller = wanted_caller)
GROUP BY timestamp, endpoint
ORDER BY timestamp ASC, endpoint ASC
