-- usage.api-counts.v2: usage.api-counts with a weekly interval
-- (docs/endpoints.md, usage.api-counts.v2, and "Versions and deprecation").
--
-- Parameters:
--   now       the time the query runs (injected, so tests can pin it)
--   project   an RE2 regular expression, matched anywhere in the request URL
--   interval  hourly | daily | minutely | weekly (validated before the query runs)
--
-- interval -> (window, bucket): hourly (1 h, hour), daily (7 days, day),
-- minutely (60 min, minute), weekly (12 weeks, the week from Monday 00:00
-- UTC); each is named in each multiIf (start-up checks that every allowed
-- value of the proto is), and the last branch is not reached. Otherwise as
-- usage.api-counts: records before now - window are excluded, a path counts
-- in every total whose substring it contains (the bits of request_api_areas,
-- migration 0003: '/rest', '/storage', '/auth', '/realtime').
WITH
    {now:DateTime64(6, 'UTC')} AS query_now,
    {interval:String} AS requested_interval,
    {project:String} AS url_pattern,
    multiIf(
        requested_interval = 'hourly', 60 * 60,
        requested_interval = 'daily', 7 * 86400,
        requested_interval = 'minutely', 60 * 60,
        requested_interval = 'weekly', 12 * 7 * 86400,
        60 * 60
    ) AS window_seconds,
    multiIf(
        requested_interval = 'hourly', 3600,
        requested_interval = 'daily', 86400,
        requested_interval = 'minutely', 60,
        requested_interval = 'weekly', 7 * 86400,
        3600
    ) AS bucket_seconds,
    matching AS (
        SELECT
            if(
                requested_interval = 'weekly',
                toDateTime64(toMonday(timestamp), 6, 'UTC'),
                toStartOfInterval(timestamp, toIntervalSecond(bucket_seconds))
            ) AS bucket,
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
