// The result-column check after migration: a warehouse that cannot describe
// the saved queries is asked again until it can (the service not ready
// meanwhile), while a mismatch it reports is final. The warehouse here is a
// fake answering DESCRIBE with the columns a test chooses.
import { ScalarType, type DescField } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { watchSchemaFit } from "../../src/service/schema-fit.js";
import { createEndpointRegistry, savedQueryServices, type Endpoint } from "../../src/endpoints/index.js";
import { createLogger } from "../../src/observability/index.js";

const endpoints = createEndpointRegistry({ services: savedQueryServices }).endpoints;
const migrated = { done: Promise.resolve(), migrated: true };

/** The ClickHouse type a saved query would give each row field: the fields' types, written out by hand. */
function columnType(field: DescField): string {
  if (field.fieldKind === "message") return "DateTime64(6, 'UTC')"; // google.protobuf.Timestamp
  if (field.fieldKind === "list") return "String"; // metadata, a JSON array
  if (field.fieldKind !== "scalar") throw new Error(`no column type for ${field.name}`);
  return (
    {
      [ScalarType.STRING]: "String",
      [ScalarType.DOUBLE]: "Float64",
      [ScalarType.INT64]: "UInt64",
      [ScalarType.UINT64]: "UInt64",
    }[field.scalar as number] ?? "?"
  );
}

/** Columns that fit `endpoint`'s row message, plus any `extra`. */
function fittingColumns(endpoint: Endpoint, extra: { name: string; type: string }[] = []) {
  return [...endpoint.rowSchema.fields.map((field) => ({ name: field.name, type: columnType(field) })), ...extra];
}

/** A warehouse whose DESCRIBE fails `failures` times, then answers `columnsOf` for the query described. */
function fakeWarehouse(failures: number, columnsOf: (endpoint: Endpoint) => { name: string; type: string }[]) {
  let asked = 0;
  return {
    get asked() {
      return asked;
    },
    query: async ({ query }: { query: string }) => {
      asked += 1;
      if (asked <= failures) throw Object.assign(new Error("socket hang up"), { code: "ECONNRESET" });
      const endpoint = endpoints.find((e) => query.includes(e.savedQuery.sql))!;
      return { json: async () => columnsOf(endpoint) };
    },
  } as const;
}

function recordingLogger() {
  const lines: Record<string, unknown>[] = [];
  return {
    lines,
    logger: createLogger({ level: "debug", write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>) }),
  };
}

describe("watchSchemaFit", () => {
  it("asks again a warehouse that could not describe the queries, and is ready once they fit", async () => {
    const { logger, lines } = recordingLogger();
    const warehouse = fakeWarehouse(2, (endpoint) => fittingColumns(endpoint));
    const fit = watchSchemaFit(migrated, endpoints, warehouse as never, { logger, retryMs: 5 });
    expect(await fit.firstTry).toBeUndefined();
    expect(fit.ready).toBe(false);
    expect(await fit.checked).toEqual([]);
    expect(fit.ready).toBe(true);
    // Two failed questions, then one for each of the five saved queries.
    expect(warehouse.asked).toBe(2 + 5);
    expect(lines.map((l) => [l.level, l.msg])).toEqual([
      ["warn", "the warehouse cannot describe the saved queries' results yet; not ready until it can"],
      ["debug", "the warehouse cannot describe the saved queries' results yet; not ready until it can"],
      ["info", "the warehouse described the saved queries' results"],
    ]);
    expect(lines[2]).toMatchObject({ failedTries: 2 });
  });

  it("takes a mismatch as final: not ready, and not asked again", async () => {
    const { logger } = recordingLogger();
    const logsAll = endpoints.find((e) => e.definition.name === "logs.all")!;
    const warehouse = fakeWarehouse(0, (endpoint) =>
      fittingColumns(endpoint, endpoint === logsAll ? [{ name: "extra", type: "UInt8" }] : []),
    );
    const fit = watchSchemaFit(migrated, endpoints, warehouse as never, { logger, retryMs: 5 });
    const problems = await fit.checked;
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^logs\.all: result column extra \(UInt8\) is not a field of logs\.v1\.LogRecord/);
    expect(await fit.firstTry).toEqual(problems);
    await new Promise((r) => setTimeout(r, 50));
    expect(warehouse.asked).toBe(5);
    expect(fit.ready).toBe(false);
  });

  it("stops asking once stopped", async () => {
    const { logger } = recordingLogger();
    const warehouse = fakeWarehouse(Number.POSITIVE_INFINITY, () => []);
    const fit = watchSchemaFit(migrated, endpoints, warehouse as never, { logger, retryMs: 5, maxRetryMs: 5 });
    await fit.firstTry;
    fit.stop();
    const asked = warehouse.asked;
    await new Promise((r) => setTimeout(r, 50));
    expect(warehouse.asked).toBe(asked);
  });

  it("waits for the first migration before asking", async () => {
    const { logger } = recordingLogger();
    let migrate!: () => void;
    const schema = { done: new Promise<void>((resolve) => (migrate = resolve)), migrated: false };
    const warehouse = fakeWarehouse(0, (endpoint) => fittingColumns(endpoint));
    const fit = watchSchemaFit(schema, endpoints, warehouse as never, { logger });
    await new Promise((r) => setTimeout(r, 20));
    expect(warehouse.asked).toBe(0);
    schema.migrated = true;
    migrate();
    expect(await fit.checked).toEqual([]);
    expect(fit.ready).toBe(true);
  });
});
