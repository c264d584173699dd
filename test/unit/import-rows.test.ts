// importRows, what the import route calls, with the insert collected: every
// line checked before any insert, bad lines named by number as field
// violations and reading stopped at the bound, rows of another project than
// the caller's refused, the body bounded in bytes, every row in one insert
// carrying its deduplication token.
import { createHash } from "node:crypto";
import type { Readable } from "node:stream";
import { Code, ConnectError } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { fieldViolationsOf } from "../../src/errors/index.js";
import { importRows, type ImportRowsOptions } from "../../src/warehouse/index.js";

function line(n: number, overrides: Record<string, unknown> = {}) {
  return JSON.stringify({
    id: `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`,
    timestamp: "2026-11-20T21:59:00.5Z",
    event_message: `line ${n}`,
    metadata: [{ project: "p" }],
    ...overrides,
  });
}

interface Insert {
  table: string;
  ids: string[];
}

/** Runs importRows into realtime_logs; collects the inserts, and the error when it throws. */
async function run(body: ImportRowsOptions["body"], options: Partial<ImportRowsOptions> = {}) {
  const inserts: Insert[] = [];
  const client = {
    insert: async (params: { table: string; values: unknown }) => {
      const ids: string[] = [];
      for await (const row of params.values as Readable) ids.push((row as { id: string }).id.slice(-2));
      inserts.push({ table: params.table, ids });
      return {} as never;
    },
  } as ImportRowsOptions["client"];
  const result = await importRows({ client, table: "realtime_logs", body, maxBytes: 10_000, ...options })
    .then((r) => r)
    .catch((error: unknown) => ConnectError.from(error));
  return { result, inserts };
}

const tokenOf = (insert: Insert) =>
  /^realtime_logs SETTINGS insert_deduplication_token = '([\w-]+)'$/.exec(insert.table)?.[1];

describe("importRows", () => {
  it("inserts every row in one insert, blank lines skipped, from a string, a Buffer or chunks", async () => {
    const text = `${line(1)}\n\n${line(2)}\r\n${line(3)}`;
    const chunks = (async function* () {
      yield new TextEncoder().encode(text.slice(0, 50));
      yield Buffer.from(text.slice(50));
    })();
    for (const body of [text, Buffer.from(text), chunks]) {
      const { result, inserts } = await run(body);
      expect(result).toEqual({ inserted: 3 });
      expect(inserts.map((i) => i.ids)).toEqual([["01", "02", "03"]]);
    }
  });

  it("gives an import without a key a token of its own, and one sent with a key the same token again", async () => {
    const body = `${line(1)}\n${line(2)}`;
    const [a, b] = [(await run(body)).inserts[0]!, (await run(body)).inserts[0]!];
    expect(tokenOf(a)).toBeDefined();
    expect(tokenOf(a)).not.toBe(tokenOf(b));
    const idempotency = { key: "k-1", caller: "shipper" };
    const keyed = [(await run(body, { idempotency })).inserts[0]!, (await run(body, { idempotency })).inserts[0]!];
    expect(tokenOf(keyed[0]!)).toBe(tokenOf(keyed[1]!));
    // The token is the SHA-256 of the caller, table, key and the body's SHA-256, each ended by a NUL.
    const bodyDigest = createHash("sha256").update(body).digest("hex");
    const expected = createHash("sha256").update(`shipper\0realtime_logs\0k-1\0${bodyDigest}\0`).digest("hex");
    expect(tokenOf(keyed[0]!)).toBe(expected);
    const other = (await run(`${line(1)}\n`, { idempotency })).inserts[0]!;
    expect(tokenOf(other)).not.toBe(expected);
    const otherCaller = (await run(body, { idempotency: { key: "k-1", caller: "another" } })).inserts[0]!;
    expect(tokenOf(otherCaller)).not.toBe(expected);
  });

  it("inserts nothing when a line is bad, naming each bad line by number with the command's messages", async () => {
    const { result, inserts } = await run([line(1), line(2, { id: "x" }), "", "{", line(5)].join("\n"));
    expect(inserts).toEqual([]);
    expect(result).toBeInstanceOf(ConnectError);
    const error = result as ConnectError;
    expect(error.code).toBe(Code.InvalidArgument);
    expect(error.rawMessage).toBe("2 bad lines; nothing was inserted");
    expect(fieldViolationsOf(error)).toEqual([
      { field: "line 2", description: "id must be a UUID string" },
      { field: "line 4", description: "not valid JSON" },
    ]);
  });

  it("stops reading at the hundredth bad line, naming each of the hundred", async () => {
    let chunksRead = 0;
    const body = (async function* () {
      for (let i = 0; i < 1000; i++) {
        chunksRead += 1;
        yield Buffer.from("x\n".repeat(10));
      }
    })();
    const { result, inserts } = await run(body, { maxBytes: 1 << 20 });
    const error = result as ConnectError;
    expect(error.rawMessage).toBe("100 bad lines, reading stopped at line 100; nothing was inserted");
    const violations = fieldViolationsOf(error);
    expect(violations).toHaveLength(100);
    expect(violations[99]).toEqual({ field: "line 100", description: "not valid JSON" });
    expect(chunksRead).toBe(10);
    expect(inserts).toEqual([]);
  });

  it("checks a chunk of many lines line by line, giving the event loop back within it", async () => {
    // Every reading of the clock moves it 4 ms: a 10 ms slice ends at every third line.
    let clock = 0;
    const now = () => (clock += 4);
    let turns = 0;
    let counting = true;
    const count = () => {
      turns += 1;
      if (counting) setImmediate(count);
    };
    setImmediate(count);
    const { result } = await run(Buffer.from("x\n".repeat(100_000)), { maxBytes: 1 << 20, now });
    counting = false;
    expect((result as ConnectError).rawMessage).toBe(
      "100 bad lines, reading stopped at line 100; nothing was inserted",
    );
    // A turn after lines 3, 6, ... 99: 33 within the one chunk, where the whole chunk was split and checked at once.
    expect(turns).toBeGreaterThanOrEqual(33);
  });

  it("reports a line over maxLineBytes, not UTF-8 or past the latest timestamp as a bad line", async () => {
    const body = Buffer.concat([
      Buffer.from(`${line(1)}\n${line(2, { event_message: "x".repeat(300) })}\n`),
      Buffer.from(line(3, { event_message: "ab" }).replace("ab", "a\u00ff")),
      Buffer.from([0x0a]),
      Buffer.from(line(4, { event_message: "ab" })).map((byte) => (byte === 0x62 ? 0xff : byte)),
      Buffer.from(`\n${line(5, { timestamp: "2026-11-20T22:05:00Z" })}`),
    ]);
    const { result } = await run(body, { maxLineBytes: 200, bounds: { latest: "2026-11-20 22:04:59.999999" } });
    expect(fieldViolationsOf(result as ConnectError)).toEqual([
      { field: "line 2", description: expect.stringMatching(/^longer than 200 bytes \(\d+\)$/) },
      { field: "line 4", description: "not valid UTF-8" },
      {
        field: "line 5",
        description: "timestamp must not be later than 2026-11-20 22:04:59 UTC (IMPORT_MAX_FUTURE_SECONDS past now)",
      },
    ]);
  });

  it("refuses rows of another project than the caller's with permission_denied, naming them", async () => {
    const body = [line(1), line(2, { metadata: [{ project: "q" }] }), line(3)].join("\n");
    const { result, inserts } = await run(body, { project: "p" });
    const error = result as ConnectError;
    expect(error.code).toBe(Code.PermissionDenied);
    expect(error.rawMessage).toBe("1 row of another project than p; nothing was inserted");
    expect(fieldViolationsOf(error)).toEqual([
      { field: "line 2", description: "metadata[0].project must be p, the project the credential fixes (not q)" },
    ]);
    expect(inserts).toEqual([]);
    expect((await run(body.replace('"q"', '"p"'), { project: "p" })).result).toEqual({ inserted: 3 });
  });

  it("refuses a body past maxBytes with resource_exhausted, inserting nothing", async () => {
    const { result, inserts } = await run([1, 2, 3].map((n) => line(n)).join("\n"), { maxBytes: 300 });
    expect((result as ConnectError).code).toBe(Code.ResourceExhausted);
    expect((result as ConnectError).rawMessage).toBe("the body is larger than 300 bytes (MAX_IMPORT_BYTES)");
    expect(inserts).toEqual([]);
  });

  it("refuses a table that is not a log table, naming table", async () => {
    const { result } = await run(line(1), { table: "users" });
    expect((result as ConnectError).code).toBe(Code.InvalidArgument);
    expect(fieldViolationsOf(result as ConnectError)[0]!.field).toBe("table");
  });
});
