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
--   cursor_timestamp,    the last row of the page before, from page_token,
--   cursor_id            or NULL for the newest page
--
-- Rows are ordered by (timestamp, id) so that a page ends at one row even
-- when several share its microsecond. One row past the page of 100 tells the
-- service whether older rows remain; it is never returned.
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
    {iso_timestamp_end:Nullable(DateTime64(6, 'UTC'))} AS upper_bound,
    {cursor_timestamp:Nullable(DateTime64(6, 'UTC'))} AS cursor_timestamp,
    {cursor_id:Nullable(String)} AS cursor_id
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
  AND (cursor_timestamp IS NULL OR (timestamp, id) < (cursor_timestamp, cursor_id))
ORDER BY timestamp DESC, id DESC
LIMIT 101
