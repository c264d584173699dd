-- usage.api-counts matches its project pattern against the request URL, not
-- the project column, so the sort key cannot narrow it. An n-gram bloom filter
-- per granule on the URL lets ClickHouse skip the granules that cannot hold
-- the literal part of the pattern (e.g. "abcdefghijklmnopqrst" or "//proj07.").
ALTER TABLE edge_logs ADD INDEX IF NOT EXISTS request_url_ngrams request_url TYPE ngrambf_v1(4, 8192, 3, 0) GRANULARITY 1;

-- Builds the index for rows inserted before this migration.
ALTER TABLE edge_logs MATERIALIZE INDEX request_url_ngrams;
