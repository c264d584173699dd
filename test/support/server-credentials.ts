// The credentials of the ClickHouse server the server-path tests run
// against (CLICKHOUSE_URL), from CLICKHOUSE_USER and CLICKHOUSE_PASSWORD.
export const serverCredentials = {
  username: process.env.CLICKHOUSE_USER ?? "default",
  password: process.env.CLICKHOUSE_PASSWORD ?? "",
};
