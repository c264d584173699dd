// Environment variables into configuration: defaults, modes, and one line per bad variable.
import { describe, expect, it } from "vitest";
import { ConfigError, readConfig } from "../../src/config/index.js";

describe("readConfig", () => {
  it("defaults to the embedded engine in ./data on 127.0.0.1:8080", () => {
    expect(readConfig({})).toEqual({
      port: 8080,
      host: "127.0.0.1",
      apiKeys: [],
      warehouse: { kind: "embedded", path: "./data", database: "default" },
      demoData: true,
      logLevel: "info",
      rateLimit: { perSecond: 100, burst: 200 },
    });
  });

  it("uses a server when CLICKHOUSE_URL is set", () => {
    const config = readConfig({
      CLICKHOUSE_URL: "http://ch:8123",
      CLICKHOUSE_USER: "reader",
      CLICKHOUSE_PASSWORD: "pw",
      CLICKHOUSE_DATABASE: "logs",
      API_KEYS: " a, b ,,c",
      DEMO_DATA: "0",
    });
    expect(config.warehouse).toEqual({ kind: "server", url: "http://ch:8123", username: "reader", password: "pw", database: "logs" });
    expect(config.apiKeys).toEqual(["a", "b", "c"]);
    expect(config.demoData).toBe(false);
  });

  it("reports every bad variable on its own line, naming it", () => {
    let error: unknown;
    try {
      readConfig({ PORT: "70000", CLICKHOUSE_URL: "not a url", DEMO_DATA: "yes", CLICKHOUSE_DATABASE: "a-b" });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const lines = (error as ConfigError).problems;
    expect(lines.map((l) => l.split(" ")[0])).toEqual(["PORT", "CLICKHOUSE_DATABASE", "CLICKHOUSE_URL", "DEMO_DATA", "API_KEYS"]);
  });

  it.each(["-1", "8080x", "1.5", "65536"])("refuses PORT=%s", (port) => {
    expect(() => readConfig({ PORT: port })).toThrow(/^PORT must be/);
  });
});

describe("readConfig, cluster and server query cache", () => {
  const server = { CLICKHOUSE_URL: "http://ch:8123", API_KEYS: "k" };

  it("leaves both unset by default", () => {
    const { warehouse } = readConfig(server);
    expect(warehouse).toEqual({ kind: "server", url: "http://ch:8123", username: "default", password: "", database: "default" });
  });

  it("reads CLICKHOUSE_CLUSTER and CLICKHOUSE_QUERY_CACHE_SECONDS with a server", () => {
    const { warehouse } = readConfig({ ...server, CLICKHOUSE_CLUSTER: "logs_cluster", CLICKHOUSE_QUERY_CACHE_SECONDS: "60" });
    expect(warehouse).toMatchObject({ kind: "server", cluster: "logs_cluster", queryCacheSeconds: 60 });
  });

  it.each(["logs-cluster", "a b", "1x", "c;DROP"])("refuses CLICKHOUSE_CLUSTER=%s, which is not an identifier", (cluster) => {
    expect(() => readConfig({ ...server, CLICKHOUSE_CLUSTER: cluster })).toThrow(
      `CLICKHOUSE_CLUSTER must be a plain identifier, got "${cluster}"`,
    );
  });

  it.each(["-1", "1.5", "x", "86401"])("refuses CLICKHOUSE_QUERY_CACHE_SECONDS=%s", (seconds) => {
    expect(() => readConfig({ ...server, CLICKHOUSE_QUERY_CACHE_SECONDS: seconds })).toThrow(
      /^CLICKHOUSE_QUERY_CACHE_SECONDS must be an integer from 0 to 86400/,
    );
  });

  it("refuses both with the embedded engine, one line each", () => {
    let error: unknown;
    try {
      readConfig({ CLICKHOUSE_CLUSTER: "logs_cluster", CLICKHOUSE_QUERY_CACHE_SECONDS: "60" });
    } catch (e) {
      error = e;
    }
    expect((error as ConfigError).problems).toEqual([
      "CLICKHOUSE_CLUSTER needs CLICKHOUSE_URL: the embedded engine is a single node",
      "CLICKHOUSE_QUERY_CACHE_SECONDS needs CLICKHOUSE_URL: the embedded engine has no server query cache",
    ]);
  });
});
