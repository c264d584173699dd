-- The demo data loads: a row when a load starts and one when it completes,
-- with its scale, so that a start can tell a finished load from one that was
-- cut short (and complete it) and `npm run seed` can replace the data set.
CREATE TABLE IF NOT EXISTS demo_data_loads
(
    state  LowCardinality(String),  -- 'started' or 'completed'
    scale  Float64,
    rows   UInt64,
    at     DateTime64(3, 'UTC')
)
ENGINE = MergeTree
ORDER BY at;
