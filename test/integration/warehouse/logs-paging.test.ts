// Paging logs.all over the embedded warehouse through the endpoint service:
// every record once, in (timestamp, id) order, across page edges that split
// records of one microsecond; tokens bound to their call and caller.
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { beforeAll, describe, expect, it } from "vitest";
import type { EndpointResult } from "../../../src/endpoints/index.js";
import { fieldViolationsOf } from "../../../src/errors/index.js";
import { type GetAllLogsResponse, GetAllLogsRequestSchema } from "../../../src/gen/logs/v1/logs_pb.js";
import { edgeRow, insertRows, ts } from "../../support/embedded-warehouse.js";
import { useQueryStack } from "../../support/query-stack.js";

const NOW = Date.UTC(2026, 10, 20, 12, 34, 56, 789);
const setup = useQueryStack(NOW);
const project = "paging";

/** Ids whose order is not the order of insertion. */
const idOf = (i: number) => `${((i * 7919) % 1000).toString(16).padStart(3, "0")}-${i}`;

// 250 records a millisecond apart, newest first by index, but for indexes
// 98, 99 and 100, which share one microsecond: the first page ends after
// two of them in (timestamp, id) order.
const records = Array.from({ length: 250 }, (_, i) => {
  const shared = i >= 98 && i <= 100;
  const ms = NOW - 60_000 - (shared ? 98 : i) * 1000;
  return { id: idOf(i), ms, micros: 500, timestamp: ts(ms, 500) };
});

/** The order the answer must have, worked out here: timestamp, then id, both descending. */
const expectedIds = [...records]
  .sort((a, b) => b.ms * 1000 + b.micros - (a.ms * 1000 + a.micros) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
  .map((r) => r.id);

function call(params: Record<string, string>, caller = "key-a"): Promise<EndpointResult> {
  const { registry, service } = setup.stack();
  const endpoint = registry.find("logs.all")!;
  const request = create(GetAllLogsRequestSchema, {
    project: params.project ?? project,
    projectTier: params.project_tier ?? "",
    pageToken: params.page_token ?? "",
  });
  return service.run(endpoint, request, { tenant: caller });
}

const messageOf = (result: EndpointResult) => result.message() as GetAllLogsResponse;

async function refusal(params: Record<string, string>, caller?: string): Promise<ConnectError> {
  const error = await call(params, caller).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConnectError);
  return error as ConnectError;
}

beforeAll(async () => {
  // Shuffled into three inserts, so the rows lie in several parts of the table.
  const shuffled = [...records].sort((a, b) => idOf(a.ms % 997).localeCompare(idOf(b.ms % 997)));
  for (let part = 0; part < 3; part++) {
    const rows = shuffled.filter((_, i) => i % 3 === part);
    await insertRows(
      setup.warehouse(),
      "edge_logs",
      rows.map((r) => edgeRow({ project, id: r.id, timestamp: r.timestamp })),
    );
  }
  await insertRows(setup.warehouse(), "edge_logs", [edgeRow({ project: "paging-short", timestamp: ts(NOW - 1000) })]);
});

describe("logs.all paging", () => {
  it("pages through 250 records, three of one microsecond across a page edge, each once and in order", async () => {
    expect(new Set(expectedIds).size).toBe(250);
    // The edge splits the microsecond the three records share.
    const shared = records.slice(98, 101).map((r) => r.id);
    expect(shared.filter((id) => expectedIds.indexOf(id) < 100)).toHaveLength(2);

    const pages: string[][] = [];
    const tokens: string[] = [];
    let pageToken = "";
    do {
      const message = messageOf(await call(pageToken === "" ? {} : { page_token: pageToken }));
      pages.push(message.result.map((r) => r.id));
      pageToken = message.nextPageToken;
      tokens.push(pageToken);
    } while (pageToken !== "" && pages.length < 10);

    expect(pages.map((p) => p.length)).toEqual([100, 100, 50]);
    expect(tokens.map((t) => t !== "")).toEqual([true, true, false]);
    expect(pages.flat()).toEqual(expectedIds);
  });

  it("writes the token beside the result in the GET body, and leaves it out on the last page", async () => {
    const first = await call({});
    const body = JSON.parse(first.json().toString()) as { result: { id: string }[]; next_page_token?: string };
    expect(Object.keys(body)).toEqual(["result", "truncated", "rows_before_limit_at_least", "next_page_token"]);
    expect(body.next_page_token).toBe(first.nextPageToken);
    expect(body.result.map((r) => r.id)).toEqual(expectedIds.slice(0, 100));

    const second = await call({ page_token: first.nextPageToken! });
    const last = await call({ page_token: second.nextPageToken! });
    expect(last.nextPageToken).toBeUndefined();
    expect(Object.keys(JSON.parse(last.json().toString()) as object)).toEqual([
      "result",
      "truncated",
      "rows_before_limit_at_least",
    ]);
  });

  it("answers a call without page_token whose records fit one page with today's body", async () => {
    const result = await call({ project: "paging-short" });
    expect(result.nextPageToken).toBeUndefined();
    expect(result.json().toString()).toMatch(/^\{"result":\[\{"id":"[^"]+","timestamp":"[^"]+","event_message"/);
    expect(result.json().toString()).not.toContain("next_page_token");
    expect(messageOf(result).nextPageToken).toBe("");
  });

  it.each([
    ["another caller", {}, "key-b"],
    ["other parameters", { project_tier: "PRO" }, "key-a"],
    ["another project", { project: "paging-short" }, "key-a"],
  ])("refuses a token made for %s, naming page_token", async (_label, params, caller) => {
    const { nextPageToken } = await call({});
    const error = await refusal({ ...params, page_token: nextPageToken! }, caller);
    expect(error.code).toBe(Code.InvalidArgument);
    expect(fieldViolationsOf(error).map((v) => v.field)).toEqual(["page_token"]);
  });

  it("refuses an altered token, naming page_token", async () => {
    const { nextPageToken } = await call({});
    const bytes = Buffer.from(nextPageToken!, "base64url");
    bytes[9] = bytes[9]! ^ 1; // a letter of the cursor's id
    const error = await refusal({ page_token: bytes.toString("base64url") });
    expect(error.code).toBe(Code.InvalidArgument);
    expect(fieldViolationsOf(error).map((v) => v.field)).toEqual(["page_token"]);
  });

  it("refuses text that is no token together with the other problems of the call", async () => {
    const error = await refusal({ project: "", page_token: "not-a-token" });
    expect(error.code).toBe(Code.InvalidArgument);
    expect(fieldViolationsOf(error).map((v) => v.field)).toEqual(["project", "page_token"]);
  });
});
