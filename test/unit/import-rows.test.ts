// importRows, what the import route calls, with the insert collected: every
// line checked before any insert, bad lines named by number as field
// violations, the body bounded in bytes, rows inserted in batches.
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

/** Runs importRows into realtime_logs; collects the inserts, and the error when it throws. */
async function run(body: ImportRowsOptions["body"], options: Partial<ImportRowsOptions> = {}) {
  const inserts: { table: string; ids: string[] }[] = [];
  const client = {
    insert: async (params: { table: string; values: unknown }) => {
      inserts.push({ table: params.table, ids: (params.values as { id: string }[]).map((r) => r.id.slice(-2)) });
      return {} as never;
    },
  } as ImportRowsOptions["client"];
  const result = await importRows({ client, table: "realtime_logs", body, maxBytes: 10_000, batchSize: 2, ...options })
    .then((r) => r)
    .catch((error: unknown) => ConnectError.from(error));
  return { result, inserts };
}

describe("importRows", () => {
  it("inserts every row in batches, blank lines skipped, from a string, a Buffer or chunks", async () => {
    const text = `${line(1)}\n\n${line(2)}\r\n${line(3)}`;
    const chunks = (async function* () {
      yield new TextEncoder().encode(text.slice(0, 50));
      yield Buffer.from(text.slice(50));
    })();
    for (const body of [text, Buffer.from(text), chunks]) {
      const { result, inserts } = await run(body);
      expect(result).toEqual({ inserted: 3 });
      expect(inserts).toEqual([
        { table: "realtime_logs", ids: ["01", "02"] },
        { table: "realtime_logs", ids: ["03"] },
      ]);
    }
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

  it("names the first 20 bad lines and counts the rest", async () => {
    const { result } = await run(Array.from({ length: 23 }, () => "[]").join("\n"));
    const violations = fieldViolationsOf(result as ConnectError);
    expect(violations).toHaveLength(21);
    expect(violations[19]).toEqual({ field: "line 20", description: "not a JSON object" });
    expect(violations[20]).toEqual({ field: "body", description: "... and 3 more bad lines" });
  });

  it("reports a line over maxLineBytes as a bad line", async () => {
    const { result } = await run(`${line(1)}\n${line(2, { event_message: "x".repeat(300) })}`, { maxLineBytes: 200 });
    expect(fieldViolationsOf(result as ConnectError)).toEqual([
      { field: "line 2", description: expect.stringMatching(/^longer than 200 bytes \(\d+\)$/) },
    ]);
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
