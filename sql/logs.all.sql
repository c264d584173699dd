-- logs.all: the most recent edge log records of one project, within the
-- retention window of its tier (docs/endpoints.md, logs.all).
--
-- Parameters:
--   now                  the time the query runs (injected, so tests can pin it)
--   project              project reference
--   project_tier         FREE (1 day) | PRO (7 days) | PAYG, ENTERPRISE (90 days);
--                        any other value is FREE (the service sends FREE
--                        for it: the last branch of the multiIf, FREE's,
--                        is not reached; start-up checks that every
--                        allowed value of the proto is named in it)
--   iso_timestamp_start  exclusive lower bound, or NULL for none
--   iso_timestamp_end    inclusive upper bound, or NULL for none
--
-- The original saved query also selects the other eight log sources with the
-- same filters but returns only the edge log selection; only that one is
-- written here, since the others never reach the result.
WITH
    {now:DateTime64(6, 'UTC')} AS query_now,
    {project_tier:String} AS tier,
    multiIf(
        tier = 'FREE', 1,
        tier = 'PRO', 7,
        tier IN ('PAYG', 'ENTERPRISE'), 90,
        1
    ) AS retention_days,
    {iso_timestamp_start:Nullable(DateTime64(6, 'UTC'))} AS lower_bound,
    {iso_timestamp_end:Nullable(DateTime64(6, 'UTC'))} AS upper_bound
SELECT
    id,
    timestamp,
    event_message,
    metadata
FROM edge_logs
WHERE project = {project:String}
  AND timestamp > query_now - toIntervalDay(retention_days)
  AND (lower_bound IS NULL OR timestamp > lower_bound)
  AND (upper_bound IS NULL OR timestamp <= upper_bound)
ORDER BY timestamp DESC
LIMIT 100
