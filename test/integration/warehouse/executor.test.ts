// The query executor on the embedded engine and against an unreachable
// server: the row cap, typed parameters, the deadline, and error translation.
import { createServer, type Server, type Socket } from "node:net";
import { ClickHouseLogLevel, createClient } from "@clickhouse/client";
import { Code, ConnectError } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createQueryExecutor, type SavedQuery } from "../../../src/executor/index.js";
import { createLogger, fixedClock } from "../../../src/observability/index.js";
import type { Warehouse } from "../../../src/warehouse/index.js";
import { openTestWarehouse } from "../../support/embedded-warehouse.js";

let warehouse: Warehouse;
beforeAll(async () => {
  warehouse = await openTestWarehouse();
});
afterAll(async () => warehouse?.close());

const query = (sql: string, maxRows = 1000): SavedQuery => ({ name: "test.query", sql, maxRows });
/** Writes 500 rows out (blocks of 100), then fails. */
const failsAfter500Rows =
  "SELECT number AS leaked FROM numbers(100000) WHERE throwIf(number = 500) = 0 SETTINGS max_block_size = 100";

describe("query executor", () => {
  it("returns at most max rows however many the SQL yields", async () => {
    const executor = createQueryExecutor({ client: warehouse.client });
    const { rows } = await executor.execute(query("SELECT number FROM numbers(5000) ORDER BY number"), {});
    expect(rows).toHaveLength(1000);
    expect(rows[0]).toEqual({ number: 0 });
    expect(rows[999]).toEqual({ number: 999 });
  });

  it("reports the rows and bytes read on the embedded engine, from the JSON format's statistics", async () => {
    const executor = createQueryExecutor({ client: warehouse.client });
    const result = await executor.execute(query("SELECT count() AS n FROM numbers(1000)"), {});
    expect(result.rows).toEqual([{ n: 1000 }]);
    // 1,000 UInt64 numbers read to return one row.
    expect(result.statistics).toMatchObject({ rowsRead: 1000, bytesRead: 8000 });
    expect(result.statistics?.elapsedMs).toBeGreaterThanOrEqual(0);
  });

  it("leaves no setting behind for the next statement of the session", async () => {
    const executor = createQueryExecutor({ client: warehouse.client });
    await executor.execute(query("SELECT number FROM numbers(10)", 3), {});
    await warehouse.client.command({ query: "CREATE TABLE numbers_copy (n UInt64) ENGINE = Memory" });
    await warehouse.client.command({ query: "INSERT INTO numbers_copy SELECT number FROM numbers(5000)" });
    const result = await warehouse.client.query({
      query: "SELECT count() AS n FROM numbers_copy",
      format: "JSONEachRow",
    });
    const [row] = await result.json<{ n: number | string }>();
    // A `limit = 3` left on the session would have cut the INSERT ... SELECT to 3 rows.
    expect(Number(row?.n)).toBe(5000);
  });

  it("passes values as typed parameters and now from its clock", async () => {
    const clock = fixedClock(Date.UTC(2030, 0, 2, 3, 4, 5, 678));
    const executor = createQueryExecutor({ client: warehouse.client, clock });
    const hostile = "x'); DROP TABLE edge_logs; --";
    const { rows, queryId } = await executor.execute(
      query("SELECT {text:String} AS text, {n:UInt32} * 2 AS doubled, {now:DateTime64(6, 'UTC')} AS now"),
      { text: hostile, n: 21 },
    );
    expect(rows).toEqual([{ text: hostile, doubled: 42, now: "2030-01-02T03:04:05.678000Z" }]);
    expect(queryId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("adds the tuning's settings to the query and rounds now down to its step", async () => {
    const clock = fixedClock(Date.UTC(2030, 0, 2, 3, 4, 5, 678));
    const tuning = { settings: { optimize_skip_unused_shards: 1 }, nowStepMs: 60_000, stableText: false };
    const executor = createQueryExecutor({ client: warehouse.client, clock, tuning: () => tuning });
    const { rows } = await executor.execute(
      query("SELECT {now:DateTime64(6, 'UTC')} AS now, getSetting('optimize_skip_unused_shards') AS skip"),
      {},
    );
    expect(rows).toEqual([{ now: "2030-01-02T03:04:00.000000Z", skip: true }]);
  });

  it("turns a query past its deadline into DEADLINE_EXCEEDED", async () => {
    const executor = createQueryExecutor({ client: warehouse.client });
    const slow = query("SELECT count() FROM numbers(100000000000) WHERE sipHash64(number) = 1");
    const error = await executor.execute(slow, {}, { timeoutMs: 200 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectError);
    expect((error as ConnectError).code).toBe(Code.DeadlineExceeded);
  });

  it("stops a query past its deadline inside the engine, leaving it free for the next one", async () => {
    const executor = createQueryExecutor({ client: warehouse.client });
    const slow = query("SELECT count() FROM numbers(100000000000) WHERE sipHash64(number) = 1");
    const error = await executor.execute(slow, {}, { timeoutMs: 300 }).catch((e: unknown) => e);
    expect((error as ConnectError).code).toBe(Code.DeadlineExceeded);
    // The engine runs one query at a time: had the slow one gone on, this would miss its own deadline.
    const { rows } = await executor.execute(query("SELECT 1 AS one"), {}, { timeoutMs: 500 });
    expect(rows).toEqual([{ one: 1 }]);
  });

  it("keeps a query whose caller left in the admission bounds until the engine has ended it", async () => {
    const executor = createQueryExecutor({ client: warehouse.client, admission: { maxConcurrent: 1, maxPerKey: 1 } });
    const slow = query("SELECT count() FROM numbers(100000000000) WHERE sipHash64(number) = 1");
    const caller = new AbortController();
    setTimeout(() => caller.abort(), 100);
    const left = await executor
      .execute(slow, {}, { timeoutMs: 1_500, tenant: "a", signal: caller.signal })
      .catch((e: unknown) => e);
    expect((left as ConnectError).code).toBe(Code.Canceled);
    // The engine cannot stop it: it runs on to its 1.5 s deadline and still counts as key a's query.
    const again = await executor
      .execute(query("SELECT 1 AS one"), {}, { timeoutMs: 5_000, tenant: "a" })
      .catch((e: unknown) => e);
    expect((again as ConnectError).code).toBe(Code.ResourceExhausted);
    // Another key waits for the one turn the engine has, and gets it once the abandoned query ends.
    const other = await executor.execute(query("SELECT 1 AS one"), {}, { timeoutMs: 5_000, tenant: "b" });
    expect(other.rows).toEqual([{ one: 1 }]);
    expect((await executor.execute(query("SELECT 2 AS two"), {}, { timeoutMs: 5_000, tenant: "a" })).rows).toEqual([
      { two: 2 },
    ]);
  });

  it("gives the warehouse the time engineTimeoutMs says when the query gets its turn", async () => {
    const executor = createQueryExecutor({ client: warehouse.client });
    const slow = query("SELECT count() FROM numbers(100000000000) WHERE sipHash64(number) = 1");
    const started = Date.now();
    const error = await executor
      .execute(slow, {}, { timeoutMs: 20_000, engineTimeoutMs: () => 300 })
      .catch((e: unknown) => e);
    // The engine stopped it (TIMEOUT_EXCEEDED), long before the call's own 20 s.
    expect((error as ConnectError).code).toBe(Code.DeadlineExceeded);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("waits for the engine's answer once the query has its turn when asked to finish it, though its caller left", async () => {
    const executor = createQueryExecutor({ client: warehouse.client });
    // Three rows, 100 ms each.
    const sleepy = query("SELECT count() AS rows FROM numbers(3) WHERE sleepEachRow(0.1) = 0");
    const leaveAt50 = () => {
      const caller = new AbortController();
      setTimeout(() => caller.abort(), 50);
      return caller.signal;
    };
    const finished = await executor.execute(
      sleepy,
      {},
      { timeoutMs: 5_000, signal: leaveAt50(), finishOnceStarted: true },
    );
    expect(finished.rows).toEqual([{ rows: 3 }]);
    const left = await executor.execute(sleepy, {}, { timeoutMs: 5_000, signal: leaveAt50() }).catch((e: unknown) => e);
    expect((left as ConnectError).code).toBe(Code.Canceled);
  });

  it("logs how a query its caller left ended, by the warehouse's own answer", async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = createLogger({
      level: "debug",
      write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>),
    });
    const executor = createQueryExecutor({ client: warehouse.client, logger, admission: { maxConcurrent: 1 } });
    const leaveAt50 = () => {
      const caller = new AbortController();
      setTimeout(() => caller.abort(), 50);
      return caller.signal;
    };
    // Fails after 300 ms on its own, and runs past its 300 ms deadline: both after their callers left at 50 ms.
    const failing = query("SELECT count() FROM numbers(3) WHERE sleepEachRow(0.1) = 0 AND throwIf(number = 2) = 0");
    const slow = query("SELECT count() FROM numbers(100000000000) WHERE sipHash64(number) = 1");
    // Each keeps the one turn until the engine ends it: the SELECT 1 after it waits for that.
    const outcomes = [];
    for (const [abandoned, timeoutMs] of [
      [failing, 5_000],
      [slow, 300],
    ] as const) {
      outcomes.push(
        await executor
          .execute(abandoned, {}, { timeoutMs, signal: leaveAt50() })
          .catch((e: unknown) => (e as ConnectError).code),
      );
      await executor.execute(query("SELECT 1"), {}, { timeoutMs: 5_000 });
    }
    // A shared query asked to finish, whose callers all left at their deadlines: the engine stops it at its own.
    const allLeft = new AbortController();
    setTimeout(() => allLeft.abort(new ConnectError("the call ran past its deadline", Code.DeadlineExceeded)), 50);
    const shared = { timeoutMs: 5_000, engineTimeoutMs: () => 300, finishOnceStarted: true, signal: allLeft.signal };
    outcomes.push(await executor.execute(slow, {}, shared).catch((e: unknown) => (e as ConnectError).code));
    expect(outcomes).toEqual([Code.Canceled, Code.Canceled, Code.DeadlineExceeded]);
    const ended = lines
      .filter(
        (line) =>
          line.queryId !== undefined && line.msg !== "warehouse answer held more than this query's rows; asked again",
      )
      .map(({ level, msg, code, callerLeft }) => ({ level, msg, code, callerLeft }));
    expect(ended).toEqual([
      { level: "warn", msg: "warehouse query failed", code: Code.Internal, callerLeft: true },
      {
        level: "debug",
        msg: "warehouse query ended at its deadline after its caller left",
        code: Code.DeadlineExceeded,
        callerLeft: undefined,
      },
      {
        level: "debug",
        msg: "warehouse query ended at its deadline after its caller left",
        code: Code.DeadlineExceeded,
        callerLeft: undefined,
      },
    ]);
  });

  it("never hands a query the rows of one that failed midway before it", async () => {
    // The executor's first query fails after 500 rows were written out (under
    // its cap of 1000); the next one must get its own three rows, none of those.
    const lines: string[] = [];
    const executor = createQueryExecutor({
      client: warehouse.client,
      logger: createLogger({ write: (line) => lines.push(line) }),
    });
    const error = await executor.execute(query(failsAfter500Rows), {}).catch((e: unknown) => e);
    expect((error as ConnectError).code).toBe(Code.Internal);
    const { rows } = await executor.execute(query("SELECT number AS own FROM numbers(3)"), {});
    expect(rows).toEqual([{ own: 0 }, { own: 1 }, { own: 2 }]);
    expect(lines.some((line) => line.includes("asked again"))).toBe(true);
  });

  it("guards against a chDB behaviour that is still there: a failed query's output goes to the next query", async () => {
    // Why the guard above exists. If this starts failing, chDB stopped doing
    // it and result-rows.ts can say so.
    const failed = await warehouse.client
      .query({ query: failsAfter500Rows, format: "JSONEachRow" })
      .then((result) => result.text())
      .catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(Error);
    const text = await (await warehouse.client.query({ query: "SELECT 'mine' AS own", format: "JSONEachRow" })).text();
    const lines = text.trimEnd().split("\n");
    expect(lines.at(-1)).toBe('{"own":"mine"}');
    expect(lines[0]).toBe('{"leaked":0}');
  });

  it("keeps warehouse text out of an INTERNAL error's message and in the log", async () => {
    const lines: string[] = [];
    const logger = createLogger({ write: (line) => lines.push(line) });
    const executor = createQueryExecutor({ client: warehouse.client, logger });
    const error = (await executor
      .execute(query("SELECT * FROM no_such_table_here"), {})
      .catch((e: unknown) => e)) as ConnectError;
    expect(error.code).toBe(Code.Internal);
    expect(error.rawMessage).toBe("internal error");
    expect(error.message).not.toContain("no_such_table_here");
    expect(lines.join("")).toContain("no_such_table_here");
  });

  it("logs a pattern the warehouse cannot compile, the caller's mistake, at debug without the warehouse's text", async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = createLogger({
      level: "debug",
      write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>),
    });
    const executor = createQueryExecutor({ client: warehouse.client, logger });
    const patternQuery = {
      ...query("SELECT match('https://abc.supabase.co/rest', {project:String}) AS matched"),
      regexpParameter: "project",
    };
    const error = (await executor.execute(patternQuery, { project: "(" }).catch((e: unknown) => e)) as ConnectError;
    expect(error.code).toBe(Code.InvalidArgument);
    expect(lines.map((l) => [l.level, l.msg, l.reason])).toEqual([
      ["debug", "warehouse refused the caller's input", error.rawMessage],
    ]);
    expect(JSON.stringify(lines)).not.toMatch(/DB::Exception|stack/);
  });
});

describe("query executor on a server that does not answer", () => {
  let closedPort: number;
  let silent: Server;
  let silentPort: number;
  beforeAll(async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, "127.0.0.1", r));
    closedPort = (probe.address() as { port: number }).port;
    await new Promise<void>((r) => probe.close(() => r()));
    // Accepts connections and never answers.
    silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    silentPort = (silent.address() as { port: number }).port;
  });
  const sockets: Socket[] = [];
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((r) => silent.close(() => r()));
  });

  it("answers UNAVAILABLE when nothing listens", async () => {
    const client = createClient({ url: `http://127.0.0.1:${closedPort}`, log: { level: ClickHouseLogLevel.OFF } });
    const executor = createQueryExecutor({ client });
    const error = (await executor.execute(query("SELECT 1"), {}).catch((e: unknown) => e)) as ConnectError;
    expect(error.code).toBe(Code.Unavailable);
    await client.close();
  });

  it("answers DEADLINE_EXCEEDED when the server takes longer than the deadline", async () => {
    const client = createClient({ url: `http://127.0.0.1:${silentPort}`, log: { level: ClickHouseLogLevel.OFF } });
    const executor = createQueryExecutor({ client });
    const error = (await executor
      .execute(query("SELECT 1"), {}, { timeoutMs: 150 })
      .catch((e: unknown) => e)) as ConnectError;
    expect(error.code).toBe(Code.DeadlineExceeded);
    await client.close();
  });

  it("answers CANCELED when the caller goes away", async () => {
    const client = createClient({ url: `http://127.0.0.1:${silentPort}`, log: { level: ClickHouseLogLevel.OFF } });
    const executor = createQueryExecutor({ client });
    const caller = new AbortController();
    setTimeout(() => caller.abort(), 50);
    const error = (await executor
      .execute(query("SELECT 1"), {}, { signal: caller.signal })
      .catch((e: unknown) => e)) as ConnectError;
    expect(error.code).toBe(Code.Canceled);
    await client.close();
  });
});
