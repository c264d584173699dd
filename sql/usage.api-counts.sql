-- usage.api-counts: time-bucketed counts of a project's API requests by API
-- area (docs/endpoints.md, usage.api-counts).
--
-- Parameters:
--   now       the time the query runs (injected, so tests can pin it)
--   project   an RE2 regular expression, matched anywhere in the request URL
--             (not against the project column: a pattern may match several)
--   interval  hourly | daily | minutely (validated before the query runs)
--
-- interval -> (window, bucket): hourly (1 h, hour), daily (7 days, day),
-- minutely (60 min, minute); each is named in each multiIf (start-up checks
-- that every allowed value of the proto is), and the last branch is not
-- reached. Records before now - window are excluded. A
-- path counts in every total whose substring it contains, so one request may
-- count in several totals; countIf gives 0, never null, for an empty total.
-- Which substrings a path contains is tested once at insert: the bits of
-- request_api_areas (migration 0003) are '/rest', '/storage', '/auth' and
-- '/realtime', in that order.
WITH
    {now:DateTime64(6, 'UTC')} AS query_now,
    {interval:String} AS requested_interval,
    {project:String} AS url_pattern,
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
    ) AS bucket_seconds,
    matching AS (
        SELECT
            toStartOfInterval(timestamp, toIntervalSecond(bucket_seconds)) AS bucket,
            request_api_areas
        FROM edge_logs
        WHERE timestamp >= query_now - toIntervalSecond(window_seconds)
          AND match(request_url, url_pattern)
          -- Compiles the pattern even when no row is scanned, so an invalid
          -- one is always an error rather than sometimes an empty result.
          AND isNotNull(match('', url_pattern))
    )
SELECT
    bucket AS timestamp,
    countIf(bitTest(request_api_areas, 0)) AS total_rest_requests,
    countIf(bitTest(request_api_areas, 1)) AS total_storage_requests,
    countIf(bitTest(request_api_areas, 2)) AS total_auth_requests,
    countIf(bitTest(request_api_areas, 3)) AS total_realtime_requests
FROM matching
GROUP BY bucket
ORDER BY bucket ASC
