-- An import sent again with its Idempotency-Key carries the
-- insert_deduplication_token it had the first time
-- (src/warehouse/log-insert.ts); keeping the tokens of the last 10,000
-- inserts of each table turns the second into no write at all, partition by
-- partition, so that a retry after a failure stores only what the first try
-- did not. Every insert of the service carries a token; an insert without
-- one (a shipper's own) is recognised by its rows' hash instead, as on
-- replicated tables. On a cluster the replicated tables keep their own
-- window (replicated_deduplication_window), and these statements are not run.
ALTER TABLE edge_logs MODIFY SETTING non_replicated_deduplication_window = 10000;
ALTER TABLE function_edge_logs MODIFY SETTING non_replicated_deduplication_window = 10000;
ALTER TABLE function_logs MODIFY SETTING non_replicated_deduplication_window = 10000;
ALTER TABLE postgres_logs MODIFY SETTING non_replicated_deduplication_window = 10000;
ALTER TABLE auth_logs MODIFY SETTING non_replicated_deduplication_window = 10000;
ALTER TABLE realtime_logs MODIFY SETTING non_replicated_deduplication_window = 10000;
ALTER TABLE storage_logs MODIFY SETTING non_replicated_deduplication_window = 10000;
ALTER TABLE postgrest_logs MODIFY SETTING non_replicated_deduplication_window = 10000;
ALTER TABLE pgbouncer_logs MODIFY SETTING non_replicated_deduplication_window = 10000;
