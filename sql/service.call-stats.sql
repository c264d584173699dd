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
-- branch is not reached. The call log's one-minute aggregates
-- (service_call_aggregates) that start before now - window are excluded. A
-- call is an error when its code is not ok, and a cache hit when it was
-- answered from the cache, fresh or stale. The percentiles are read from the
-- merged latency histograms: each histogram bucket stands for its calls by
-- their mean duration, and the percentile is interpolated between the two
-- nearest of these values as ClickHouse's quantile interpolates between the
-- two nearest calls; within one histogram bucket's width (4.4%) of it, and
-- equal to it when each histogram bucket holds calls of one duration.
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
    timestamp,
    endpoint,
    calls,
    errors,
    cache_hits,
    below50 + (at50 - floor(at50)) * (above50 - below50) AS p50_duration_ms,
    below95 + (at95 - floor(at95)) * (above95 - below95) AS p95_duration_ms,
    rows_read,
    bytes_read
FROM
(
    -- The expanded calls, sorted by duration, are each histogram bucket's
    -- mean repeated its count times; a percentile at `at` lies between the
    -- calls numbered floor(at) and the next (from 0).
    SELECT
        *,
        arrayMap((n, total) -> total / n, latency.2, latency.3) AS means,
        arrayCumSum(latency.2) AS cumulative,
        toInt64(arraySum(latency.2)) - 1 AS last_index,
        0.5 * last_index AS at50,
        0.95 * last_index AS at95,
        arrayElement(means, arrayFirstIndex(c -> c > floor(at50), cumulative)) AS below50,
        arrayElement(means, arrayFirstIndex(c -> c > least(toInt64(floor(at50)) + 1, last_index), cumulative)) AS above50,
        arrayElement(means, arrayFirstIndex(c -> c > floor(at95), cumulative)) AS below95,
        arrayElement(means, arrayFirstIndex(c -> c > least(toInt64(floor(at95)) + 1, last_index), cumulative)) AS above95
    FROM
    (
        SELECT
            toStartOfInterval(service_call_aggregates.timestamp, toIntervalSecond(bucket_seconds)) AS timestamp,
            service_call_aggregates.endpoint AS endpoint,
            sum(service_call_aggregates.calls) AS calls,
            sumIf(service_call_aggregates.calls, code != 'ok') AS errors,
            sumIf(service_call_aggregates.calls, cache IN ('hit', 'stale')) AS cache_hits,
            sumMap(latency_buckets, latency_counts, latency_sums) AS latency,
            sum(service_call_aggregates.rows_read) AS rows_read,
            sum(service_call_aggregates.bytes_read) AS bytes_read
        FROM service_call_aggregates
        WHERE service_call_aggregates.timestamp >= query_now - toIntervalSecond(window_seconds)
          AND (wanted_endpoint = '' OR service_call_aggregates.endpoint = wanted_endpoint)
          AND (wanted_caller = '' OR caller = wanted_caller)
        GROUP BY timestamp, endpoint
    )
)
ORDER BY timestamp ASC, endpoint ASC
