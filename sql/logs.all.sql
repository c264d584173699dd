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
--   unmasked             1 when the caller's credential may see personal data,
--                        else 0 (set by the service, never by the caller)
--
-- Personal data (docs/credentials.md#personal-data), as marked in
-- proto/logs/v1/logs.proto: unless unmasked, every IPv6 and IPv4 address in
-- event_message and metadata becomes :: and 0.0.0.0, and in metadata the
-- scalar value of each marked key, at any depth, becomes "[masked]" (start-up
-- checks that every marked key is named here). IPv6 goes first, so that an
-- IPv4 address inside one (::ffff:192.0.2.1) goes with it.
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
    {cursor_id:Nullable(String)} AS cursor_id,
    {unmasked:UInt8} AS unmasked,
    -- Full form, compressed form (either side of :: may be empty), each
    -- between word boundaries so that std::vector or a time stays.
    '(\\b[0-9A-Fa-f]{1,4}(:[0-9A-Fa-f]{1,4}){0,5})?::([0-9A-Fa-f]{1,4}:){0,5}((25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)\\.){3}(25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)\\b|\\b[0-9A-Fa-f]{1,4}(:[0-9A-Fa-f]{1,4}){7}\\b|(\\b[0-9A-Fa-f]{1,4}(:[0-9A-Fa-f]{1,4}){0,6})?::([0-9A-Fa-f]{1,4}(:[0-9A-Fa-f]{1,4}){0,6}\\b)?' AS ipv6_address,
    '\\b((25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)\\.){3}(25[0-5]|2[0-4][0-9]|[01]?[0-9][0-9]?)\\b' AS ipv4_address,
    -- A marked key and its string, number, true, false or null value.
    '"(cf_connecting_ip|cf-connecting-ip|x_forwarded_for|x-forwarded-for|x_real_ip|x-real-ip|true_client_ip|true-client-ip|user_agent|user-agent|city|postalCode|latitude|longitude|email)"\\s*:\\s*("([^"\\\\]|\\\\.)*"|-?[0-9][0-9.eE+-]*|true|false|null)' AS personal_value
SELECT
    id,
    timestamp,
    if(unmasked = 1, event_message,
       replaceRegexpAll(replaceRegexpAll(event_message, ipv6_address, '::'), ipv4_address, '0.0.0.0')) AS event_message,
    if(unmasked = 1, metadata,
       replaceRegexpAll(
           replaceRegexpAll(replaceRegexpAll(metadata, personal_value, '"\\1":"[masked]"'), ipv6_address, '::'),
           ipv4_address, '0.0.0.0')) AS metadata
FROM edge_logs
WHERE project = {project:String}
  AND timestamp > query_now - toIntervalDay(retention_days)
  AND (lower_bound IS NULL OR timestamp > lower_bound)
  AND (upper_bound IS NULL OR timestamp <= upper_bound)
  AND (cursor_timestamp IS NULL OR (timestamp, id) < (cursor_timestamp, cursor_id))
ORDER BY timestamp DESC, id DESC
LIMIT 101
