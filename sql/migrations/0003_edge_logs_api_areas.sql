-- usage.api-counts counts each request in the totals of the API areas whose
-- substring its path contains. Testing the four substrings once, at insert,
-- into one byte per row lets the query read that byte instead of the path and
-- search it four times per row, for every row the query reads (one project's
-- query reads all the granules holding its URLs; docs/performance.md has the
-- figures).
--
-- Bit 0: '/rest', bit 1: '/storage', bit 2: '/auth', bit 3: '/realtime'
-- (a path may set several). Rows inserted before this migration get the
-- column from the MATERIALIZE below; until that mutation reaches a part,
-- ClickHouse computes the expression when the part is read.
ALTER TABLE edge_logs ADD COLUMN IF NOT EXISTS request_api_areas UInt8 MATERIALIZED
    (position(request_path, '/rest') > 0)
    + 2 * (position(request_path, '/storage') > 0)
    + 4 * (position(request_path, '/auth') > 0)
    + 8 * (position(request_path, '/realtime') > 0);

ALTER TABLE edge_logs MATERIALIZE COLUMN request_api_areas;
