// A failure inside a handler, synchronous or not, is the service's bug: the
// request gets a 500 with the usual error body, the failure is logged at
// error with its stack, and the process keeps serving.
import { Gauge } from "prom-client";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createLogger, createMetrics } from "../../../src/observability/index.js";
import { createSinglePortServer, type SinglePortServer } from "../../../src/transport/index.js";
import type { Warehouse } from "../../../src/warehouse/index.js";
import { openTestWarehouse } from "../../support/embedded-warehouse.js";
import { NOW } from "../../support/scenario.js";
import { startTestServer, type TestServer } from "../../support/test-server.js";

type Line = Record<string, unknown>;
const internalBody = { error: { code: "internal", message: "internal error", details: [] } };

let lines: Line[] = [];
const logger = createLogger({ write: (line) => lines.push(JSON.parse(line) as Line) });
const unhandled: unknown[] = [];
const recordUnhandled = (reason: unknown) => unhandled.push(reason);
beforeAll(() => void process.on("unhandledRejection", recordUnhandled));
afterAll(() => void process.off("unhandledRejection", recordUnhandled));
beforeEach(() => {
  lines = [];
  unhandled.length = 0;
});

/** Lets any rejection left unhandled by the last request reach the process's handlers (they run before the next turn). */
const settled = () => new Promise((resolve) => setImmediate(resolve));

describe("a metrics registry that fails to collect", () => {
  let warehouse: Warehouse;
  let server: TestServer;
  beforeAll(async () => {
    warehouse = await openTestWarehouse();
    const metrics = createMetrics({ processMetrics: false });
    new Gauge({
      name: "broken_gauge",
      help: "A collector that always throws.",
      registers: [metrics.registry],
      collect() {
        throw new Error("collector broke", { cause: new Error("source gone") });
      },
    });
    server = await startTestServer(warehouse, NOW, { logger, metrics });
  });
  afterAll(async () => {
    await server?.close();
    await warehouse?.close();
  });

  it("answers /metrics with 500 internal, logs the failure at error with its stack, and keeps serving", async () => {
    const response = await fetch(`${server.url}/metrics`, { signal: AbortSignal.timeout(5_000) });
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual(internalBody);
    await settled();
    expect(unhandled).toEqual([]);
    const errors = lines.filter((line) => line.level === "error");
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({
      msg: "route failed",
      path: "/metrics",
      error: { message: "collector broke", cause: { message: "source gone" } },
    });
    expect((errors[0]!.error as Line).stack).toMatch(/^Error: collector broke\n\s+at /);
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
  });
});

describe("a handler that throws", () => {
  let server: SinglePortServer;
  let url: string;
  beforeAll(async () => {
    server = createSinglePortServer(
      () => {
        throw new TypeError("handler bug");
      },
      { logger },
    );
    const { port } = await server.listen(0, "127.0.0.1");
    url = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    await server?.close(1_000);
  });
  afterEach(async () => {
    await settled();
    expect(unhandled).toEqual([]);
  });

  it("answers 500 internal and logs the exception at error with its stack, without the query string", async () => {
    const response = await fetch(`${url}/throw?api_key=secret`);
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual(internalBody);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: "error", msg: "request handler threw", method: "GET", path: "/throw" });
    expect(lines[0]!.error).toMatchObject({ name: "TypeError", message: "handler bug" });
    expect((lines[0]!.error as Line).stack).toMatch(/^TypeError: handler bug\n\s+at .*handler-failures\.test\.ts/);
    expect(JSON.stringify(lines[0])).not.toContain("secret");
  });

  it("keeps serving after a handler threw", async () => {
    const first = await fetch(`${url}/throw`);
    await first.arrayBuffer();
    const second = await fetch(`${url}/throw`);
    expect(second.status).toBe(500);
    expect(lines.filter((line) => line.level === "error")).toHaveLength(2);
  });
});
