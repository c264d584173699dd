// One line of a log file against the log-table contract: columns per table,
// their types, and the metadata fields the tables derive columns from.
import { describe, expect, it } from "vitest";
import { checkLogLine, latestTimestamp } from "../../src/warehouse/index.js";

const id = "0b6c4f3e-8a1c-4f3e-b5d7-9e1f3a5c7b9d";
const edge = {
  id,
  timestamp: "2026-11-20T21:59:00.123456+01:00",
  event_message: "GET | 200 | /rest/v1/todos",
  project: "abcdefghijklmnopqrst",
  metadata:
    '[{"request":[{"path":"/rest/v1/todos","url":"https://abcdefghijklmnopqrst.supabase.co/rest/v1/todos"}],"response":[{"status_code":200}]}]',
};
const fn = {
  id,
  timestamp: "2026-11-20 21:59:00",
  event_message: "POST | 200 | /functions/v1/hello",
  metadata: [{ project_ref: "abcdefghijklmnopqrst", function_id: "f1", execution_time_ms: 12.5 }],
};
const line = (value: object) => JSON.stringify(value);

describe("checkLogLine", () => {
  it("reads an edge_logs row: timestamp in UTC with microseconds, metadata kept as text", () => {
    expect(checkLogLine("edge_logs", line(edge))).toEqual({
      ok: true,
      row: { ...edge, timestamp: "2026-11-20 20:59:00.123456" },
      owner: {
        project: "abcdefghijklmnopqrst",
        field: "project",
        url: "https://abcdefghijklmnopqrst.supabase.co/rest/v1/todos",
      },
    });
  });

  it("reads a function_edge_logs row with metadata given as the array itself, stored as its JSON text", () => {
    expect(checkLogLine("function_edge_logs", line(fn))).toEqual({
      ok: true,
      row: {
        ...fn,
        timestamp: "2026-11-20 21:59:00.000000",
        metadata: '[{"project_ref":"abcdefghijklmnopqrst","function_id":"f1","execution_time_ms":12.5}]',
      },
      owner: { project: "abcdefghijklmnopqrst", field: "metadata[0].project_ref" },
    });
  });

  it("reads the project of a realtime_logs row from metadata[0].project", () => {
    const check = checkLogLine("realtime_logs", line({ ...fn, metadata: [{ project: "rt" }] }));
    expect(check.ok && check.owner).toEqual({ project: "rt", field: "metadata[0].project" });
  });

  it("takes a timestamp up to the latest allowed and refuses one a microsecond past it", () => {
    const latest = latestTimestamp(Date.UTC(2026, 10, 20, 21, 59), 300);
    expect(latest).toBe("2026-11-20 22:04:00.000000");
    const at = (timestamp: string) => checkLogLine("edge_logs", line({ ...edge, timestamp }), { latest });
    expect(at("2026-11-20T23:04:00+01:00").ok).toBe(true);
    expect(at("2026-11-20T22:04:00.000001Z")).toEqual({
      ok: false,
      problems: ["timestamp must not be later than 2026-11-20 22:04:00 UTC (IMPORT_MAX_FUTURE_SECONDS past now)"],
    });
    expect(at("2299-01-01T00:00:00Z").ok).toBe(false);
  });

  it("takes a surrogate pair, escaped or not, and refuses a lone surrogate in the line or in metadata text", () => {
    const pair = line({ ...edge, event_message: "PAIR" }).replace("PAIR", "\\ud83d\\ude00");
    expect(checkLogLine("edge_logs", pair).ok).toBe(true);
    expect(checkLogLine("edge_logs", line({ ...edge, event_message: "😀" })).ok).toBe(true);
    const lone = line({ ...edge, event_message: "LONE" }).replace("LONE", "a\\ud800b");
    expect(checkLogLine("edge_logs", lone)).toEqual({
      ok: false,
      problems: ["holds a lone surrogate (\\ud800 to \\udfff)"],
    });
    const low = line({ ...edge, event_message: "LONE" }).replace("LONE", "\\udc00");
    expect(checkLogLine("edge_logs", low).ok).toBe(false);
    const inMetadata = line({ ...edge, metadata: '[{"request":[{"path":"/pLONE"}]}]' }).replace("LONE", "\\\\ud800");
    expect(checkLogLine("edge_logs", inMetadata)).toEqual({
      ok: false,
      problems: ["metadata holds a lone surrogate (\\ud800 to \\udfff)"],
    });
  });

  it.each([
    ["text that is not JSON", "edge_logs", "{id:", ["not valid JSON"]],
    ["a JSON array", "edge_logs", "[]", ["not a JSON object"]],
    ["a missing column", "edge_logs", line({ ...edge, event_message: undefined }), ["event_message is missing"]],
    [
      "an unknown column",
      "edge_logs",
      line({ ...edge, level: "info" }),
      ["level is not a column of edge_logs (its columns: id, timestamp, event_message, project, metadata)"],
    ],
    [
      "project where it is read from metadata",
      "function_edge_logs",
      line({ ...fn, project: "p" }),
      ["project is not a column of function_edge_logs: it is read from metadata"],
    ],
    ["an id that is not a UUID", "edge_logs", line({ ...edge, id: "42" }), ["id must be a UUID string"]],
    [
      "a year before 1900",
      "edge_logs",
      line({ ...edge, timestamp: "0050-01-01T00:00:00Z" }),
      ["timestamp must be an ISO 8601 date-time between 1900 and 2299, e.g. 2026-11-20T21:59:00.123456Z"],
    ],
    ["a numeric event_message", "edge_logs", line({ ...edge, event_message: 7 }), ["event_message must be a string"]],
    ["an empty project", "edge_logs", line({ ...edge, project: "" }), ["project must be a non-empty string"]],
    [
      "metadata with two objects",
      "edge_logs",
      line({ ...edge, metadata: "[{},{}]" }),
      ["metadata must be a JSON array of one object (as text or as the array itself)"],
    ],
    [
      "metadata without project_ref",
      "function_logs",
      line({ ...fn, metadata: [{ function_id: "f1" }] }),
      ["metadata[0].project_ref is missing"],
    ],
    [
      "a text execution time",
      "function_edge_logs",
      line({ ...fn, metadata: [{ project_ref: "p", function_id: "f1", execution_time_ms: "12" }] }),
      ["metadata[0].execution_time_ms must be a number"],
    ],
    [
      "a text status code",
      "edge_logs",
      line({ ...edge, metadata: '[{"response":[{"status_code":"200"}]}]' }),
      ["metadata[0].response[0].status_code must be a number"],
    ],
    [
      "realtime_logs metadata without project",
      "realtime_logs",
      line({ ...fn, metadata: [{ level: "info" }] }),
      ["metadata[0].project is missing"],
    ],
  ] as const)("refuses %s", (_label, table, text, problems) => {
    expect(checkLogLine(table, text)).toEqual({ ok: false, problems });
  });
});
