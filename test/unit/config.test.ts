// Environment variables into configuration: defaults, modes, and one line per bad variable.
import { describe, expect, it } from "vitest";
import { ConfigError, readConfig } from "../../src/config/index.js";

describe("readConfig", () => {
  it("defaults to the embedded engine in ./data on 127.0.0.1:8080", () => {
    expect(readConfig({})).toEqual({
      port: 8080,
      host: "127.0.0.1",
      trustedProxies: [],
      apiKeys: [],
      credentials: {
        apiKeysFile: undefined,
        apiKeysFilePollMs: 2000,
        jwtSecret: undefined,
        jwtPublicKey: undefined,
        jwtJwksFile: undefined,
      },
      warehouse: { kind: "embedded", path: "./data", database: "default" },
      demoData: true,
      warehouseRetryMs: 5000,
      logLevel: "info",
      pageTokens: { secret: undefined, previousSecret: undefined },
      rateLimit: { perSecond: 100, burst: 200 },
      rpcFastPath: true,
      limits: {
        maxBodyBytes: 65_536,
        maxImportBytes: 16 * 1024 * 1024,
        maxImportsRunning: 2,
        importMaxFutureSeconds: 300,
        importMinBytesPerSecond: 16_384,
        importRefreshMs: 1_000,
        maxParameterLength: 1024,
        maxConnections: 4096,
        maxConnectionsPerAddress: 256,
        maxStreamsPerAddress: 1024,
        firstRequestTimeoutMs: 10_000,
        idleTimeoutMs: 60_000,
        maxQueryMs: 30_000,
        watchBounds: { maxStreams: 10_000, perCaller: 100, perAddress: 100 },
        tailPollMs: 2000,
        readLimits: { maxRowsToRead: 0, maxBytesToRead: 0 },
        warehouseConcurrency: 1,
        warehouseQueue: 64,
        warehouseCallsPerKey: 16,
        cacheSharePerCaller: 0.5,
        staleIfErrorMs: 3_600_000,
        authFailures: { perSecond: 1, burst: 20 },
        responseStallMs: 30_000,
        maxUnsentBytesPerConnection: 4 * 1024 * 1024,
        maxUnsentBytesPerAddress: 16 * 1024 * 1024,
        keylessRateLimit: { perSecond: 20, burst: 40 },
      },
      corsOrigins: "*",
      explorer: true,
      callLog: { enabled: true, flushMs: 5000, maxRows: 100_000, retentionDays: 30 },
    });
  });

  it("reads every bound from its variable, and lets a server run eight queries at once by default", () => {
    const config = readConfig({
      CLICKHOUSE_URL: "http://ch:8123",
      API_KEYS: "0123456789abcdef",
      MAX_BODY_BYTES: "1000",
      MAX_IMPORT_BYTES: "2000",
      MAX_IMPORTS_RUNNING: "3",
      IMPORT_MAX_FUTURE_SECONDS: "60",
      IMPORT_MIN_BYTES_PER_SECOND: "0",
      IMPORT_REFRESH_SECONDS: "5",
      MAX_PARAMETER_LENGTH: "64",
      MAX_CONNECTIONS: "10",
      FIRST_REQUEST_TIMEOUT_SECONDS: "2",
      IDLE_TIMEOUT_SECONDS: "3",
      MAX_QUERY_SECONDS: "4",
      MAX_ROWS_TO_READ: "1000000",
      MAX_BYTES_TO_READ: "5000000000",
      WAREHOUSE_QUEUE: "0",
      WAREHOUSE_CALLS_PER_KEY: "2",
      CACHE_SHARE_PER_CALLER: "0.25",
      STALE_IF_ERROR_SECONDS: "60",
      AUTH_FAILURES_PER_SECOND: "0.5",
      AUTH_FAILURE_BURST: "5",
      RESPONSE_STALL_SECONDS: "7",
      MAX_UNSENT_BYTES_PER_CONNECTION: "1000",
      MAX_UNSENT_BYTES_PER_ADDRESS: "3000",
      KEYLESS_RATE_LIMIT_PER_SECOND: "0.5",
      KEYLESS_RATE_LIMIT_BURST: "3",
      MAX_WATCH_STREAMS: "50",
      MAX_WATCH_STREAMS_PER_CALLER: "5",
      MAX_WATCH_STREAMS_PER_ADDRESS: "6",
      TAIL_POLL_SECONDS: "3",
    });
    expect(config.limits).toEqual({
      maxBodyBytes: 1000,
      maxImportBytes: 2000,
      maxImportsRunning: 3,
      importMaxFutureSeconds: 60,
      importMinBytesPerSecond: 0,
      importRefreshMs: 5_000,
      maxParameterLength: 64,
      maxConnections: 10,
      maxConnectionsPerAddress: 256,
      maxStreamsPerAddress: 1024,
      firstRequestTimeoutMs: 2000,
      idleTimeoutMs: 3000,
      maxQueryMs: 4000,
      watchBounds: { maxStreams: 50, perCaller: 5, perAddress: 6 },
      tailPollMs: 3000,
      readLimits: { maxRowsToRead: 1_000_000, maxBytesToRead: 5_000_000_000 },
      warehouseConcurrency: 8,
      warehouseQueue: 0,
      warehouseCallsPerKey: 2,
      cacheSharePerCaller: 0.25,
      staleIfErrorMs: 60_000,
      authFailures: { perSecond: 0.5, burst: 5 },
      responseStallMs: 7000,
      maxUnsentBytesPerConnection: 1000,
      maxUnsentBytesPerAddress: 3000,
      keylessRateLimit: { perSecond: 0.5, burst: 3 },
    });
  });

  it("moves /metrics to METRICS_PORT on METRICS_HOST, HOST by default, and refuses the API port", () => {
    expect(readConfig({}).metrics).toBeUndefined();
    expect(readConfig({ HOST: "0.0.0.0", METRICS_PORT: "9464" }).metrics).toEqual({ port: 9464, host: "0.0.0.0" });
    expect(readConfig({ METRICS_PORT: "9464", METRICS_HOST: "10.1.2.3" }).metrics).toEqual({
      port: 9464,
      host: "10.1.2.3",
    });
    expect(() => readConfig({ METRICS_PORT: "8080" })).toThrow("METRICS_PORT must differ from PORT, both are 8080");
    expect(() => readConfig({ METRICS_PORT: "70000" })).toThrow(
      'METRICS_PORT must be an integer from 0 to 65535, got "70000"',
    );
    expect(() => readConfig({ METRICS_HOST: "10.1.2.3" })).toThrow("METRICS_HOST needs METRICS_PORT");
  });

  it.each([
    ["MAX_BODY_BYTES", "0"],
    ["MAX_CONNECTIONS", "-5"],
    ["MAX_QUERY_SECONDS", "1.5"],
    ["WAREHOUSE_CONCURRENCY", "many"],
    ["AUTH_FAILURES_PER_SECOND", "-1"],
    ["RESPONSE_STALL_SECONDS", "0"],
    ["MAX_UNSENT_BYTES_PER_ADDRESS", "lots"],
    ["KEYLESS_RATE_LIMIT_PER_SECOND", "-2"],
    ["CACHE_SHARE_PER_CALLER", "0"],
    ["CACHE_SHARE_PER_CALLER", "1.5"],
    ["CACHE_SHARE_PER_CALLER", "half"],
    ["STALE_IF_ERROR_SECONDS", "-1"],
    ["STALE_IF_ERROR_SECONDS", "an hour"],
  ])("refuses %s=%s naming the variable", (name, value) => {
    expect(() => readConfig({ [name]: value })).toThrow(new RegExp(`^${name} must be`));
  });

  it("keeps the embedded engine at one warehouse query at a time", () => {
    expect(readConfig({ WAREHOUSE_CONCURRENCY: "1" }).limits.warehouseConcurrency).toBe(1);
    expect(() => readConfig({ WAREHOUSE_CONCURRENCY: "4" })).toThrow(
      new ConfigError([
        "WAREHOUSE_CONCURRENCY above 1 needs CLICKHOUSE_URL: the embedded engine runs one saved query at a time",
      ]),
    );
  });

  it("reads trusted proxies as addresses and CIDR ranges, and names each entry that is neither", () => {
    expect(readConfig({ TRUSTED_PROXIES: " 10.0.0.0/8, 192.0.2.7 ,fd00::/8,::1" }).trustedProxies).toEqual([
      "10.0.0.0/8",
      "192.0.2.7",
      "fd00::/8",
      "::1",
    ]);
    expect(() => readConfig({ TRUSTED_PROXIES: "10.0.0.0/33,proxy.local,::1/129,10.0.0.1/8/2" })).toThrow(
      new ConfigError([
        'TRUSTED_PROXIES: "10.0.0.0/33" has a prefix length outside 0-32',
        'TRUSTED_PROXIES: "proxy.local" is not an IP address or CIDR range',
        'TRUSTED_PROXIES: "::1/129" has a prefix length outside 0-128',
        'TRUSTED_PROXIES: "10.0.0.1/8/2" is not an IP address or CIDR range',
      ]),
    );
  });

  it("takes a key file or a token key in place of API_KEYS with a server, and one way of verifying tokens", () => {
    const server = { CLICKHOUSE_URL: "http://ch:8123" };
    expect(readConfig({ ...server, API_KEYS_FILE: "/etc/keys.json" }).credentials.apiKeysFile).toBe("/etc/keys.json");
    expect(readConfig({ ...server, JWT_SECRET: "s".repeat(32) }).credentials.jwtSecret).toBe("s".repeat(32));
    expect(() => readConfig({ JWT_SECRET: "short" })).toThrow("JWT_SECRET must be at least 32 characters long, got 5");
    expect(() => readConfig({ JWT_SECRET: "s".repeat(32), JWT_JWKS_FILE: "/k.json" })).toThrow(
      "JWT_SECRET and JWT_JWKS_FILE: set one way of verifying tokens, not 2",
    );
  });

  it("reads the page tokens' secrets, at least 32 characters, the previous one only beside a current one", () => {
    const current = "c".repeat(32);
    const previous = "p".repeat(40);
    expect(readConfig({}).pageTokens).toEqual({ secret: undefined, previousSecret: undefined });
    expect(readConfig({ PAGE_TOKEN_SECRET: current, PAGE_TOKEN_PREVIOUS_SECRET: previous }).pageTokens).toEqual({
      secret: current,
      previousSecret: previous,
    });
    expect(() => readConfig({ PAGE_TOKEN_SECRET: "short" })).toThrow(
      "PAGE_TOKEN_SECRET must be at least 32 characters long, got 5",
    );
    expect(() => readConfig({ PAGE_TOKEN_PREVIOUS_SECRET: previous })).toThrow(
      "PAGE_TOKEN_PREVIOUS_SECRET needs PAGE_TOKEN_SECRET",
    );
  });

  it.each([
    ["short-key", "API_KEYS key 1 is 9 characters long; keys need at least 16"],
    ["0123456789abcdef,with space 0123456789", "API_KEYS key 2 contains white space"],
  ])("stops start-up for the API key in API_KEYS=%s", (keys, line) => {
    expect(() => readConfig({ API_KEYS: keys })).toThrow(line);
  });

  it("uses a server when CLICKHOUSE_URL is set", () => {
    const config = readConfig({
      CLICKHOUSE_URL: "http://ch:8123",
      CLICKHOUSE_USER: "reader",
      CLICKHOUSE_PASSWORD: "pw",
      CLICKHOUSE_DATABASE: "logs",
      API_KEYS: " key-a-0123456789, key-b-0123456789 ,,key-c-0123456789",
      DEMO_DATA: "0",
    });
    expect(config.warehouse).toEqual({
      kind: "server",
      url: "http://ch:8123",
      username: "reader",
      password: "pw",
      database: "logs",
    });
    expect(config.apiKeys).toEqual(["key-a-0123456789", "key-b-0123456789", "key-c-0123456789"]);
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
    expect(lines.map((l) => l.split(" ")[0])).toEqual([
      "PORT",
      "CLICKHOUSE_DATABASE",
      "CLICKHOUSE_URL",
      "DEMO_DATA",
      "API_KEYS",
    ]);
  });

  it("reports the warehouse's variables before the keys', as the service's start-up prints them", () => {
    let error: unknown;
    try {
      readConfig({ PORT: "99999", CLICKHOUSE_URL: "nope", API_KEYS: "0123456789abcdef,short" });
    } catch (e) {
      error = e;
    }
    expect((error as ConfigError).problems).toEqual([
      'PORT must be an integer from 0 to 65535, got "99999"',
      'CLICKHOUSE_URL must be an http:// or https:// URL, got "nope"',
      "API_KEYS key 2 is 5 characters long; keys need at least 16",
    ]);
  });

  it.each(["-1", "8080x", "1.5", "65536"])("refuses PORT=%s", (port) => {
    expect(() => readConfig({ PORT: port })).toThrow(/^PORT must be/);
  });

  it.each([
    ["2", 2000],
    ["0.25", 250],
    ["0.1", 100],
  ])("reads WAREHOUSE_RETRY_SECONDS=%s as %i ms", (raw, ms) => {
    expect(readConfig({ WAREHOUSE_RETRY_SECONDS: raw }).warehouseRetryMs).toBe(ms);
  });

  it.each(["0", "0.05", "-1", "soon", "1e3"])("refuses WAREHOUSE_RETRY_SECONDS=%s", (raw) => {
    expect(() => readConfig({ WAREHOUSE_RETRY_SECONDS: raw })).toThrow(
      `WAREHOUSE_RETRY_SECONDS must be a number of at least 0.1, got "${raw}"`,
    );
  });
});

describe("readConfig, cluster and server query cache", () => {
  const server = { CLICKHOUSE_URL: "http://ch:8123", API_KEYS: "0123456789abcdef" };

  it("leaves both unset by default", () => {
    const { warehouse } = readConfig(server);
    expect(warehouse).toEqual({
      kind: "server",
      url: "http://ch:8123",
      username: "default",
      password: "",
      database: "default",
    });
  });

  it("reads CLICKHOUSE_CLUSTER and CLICKHOUSE_QUERY_CACHE_SECONDS with a server", () => {
    const { warehouse } = readConfig({
      ...server,
      CLICKHOUSE_CLUSTER: "logs_cluster",
      CLICKHOUSE_QUERY_CACHE_SECONDS: "60",
    });
    expect(warehouse).toMatchObject({ kind: "server", cluster: "logs_cluster", queryCacheSeconds: 60 });
  });

  it.each(["logs-cluster", "a b", "1x", "c;DROP"])(
    "refuses CLICKHOUSE_CLUSTER=%s, which is not an identifier",
    (cluster) => {
      expect(() => readConfig({ ...server, CLICKHOUSE_CLUSTER: cluster })).toThrow(
        `CLICKHOUSE_CLUSTER must be a plain identifier, got "${cluster}"`,
      );
    },
  );

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
