// A watch tail message says whether records were dropped from it: none for
// a message of new records, and those past maxHeldTailRows when messages
// held for a slow reader are merged.
import { describe, expect, it } from "vitest";
import { createEndpointRegistry, savedQueryServices } from "../../src/endpoints/index.js";
import { maxHeldTailRows, mergeTail, tailMessage } from "../../src/endpoints/watch-tail.js";

const logsAll = createEndpointRegistry({ services: savedQueryServices }).find("logs.all")!;
const call = { endpoint: logsAll, queryParams: {} };

/** `count` records a second apart from `first` seconds past 2026-11-20 12:00:00 UTC. */
function records(first: number, count: number) {
  return Array.from({ length: count }, (_, i) => ({
    id: `r${first + i}`,
    timestamp: new Date(Date.UTC(2026, 10, 20, 12) + (first + i) * 1000).toISOString(),
    event_message: "",
    metadata: "[]",
  }));
}

describe("tail messages", () => {
  it("leave nothing out of a message of new records", () => {
    const message = tailMessage(call, records(0, 3), 0);
    expect(message.computation.truncation).toEqual({ truncated: false, rowsBeforeLimitAtLeast: 3 });
  });

  it("say how many records there were when merging drops the oldest past the bound", () => {
    const held = tailMessage(call, records(0, maxHeldTailRows), 0);
    const merged = mergeTail(call, held, tailMessage(call, records(maxHeldTailRows, 5), 1));
    expect(merged.computation.truncation).toEqual({ truncated: true, rowsBeforeLimitAtLeast: maxHeldTailRows + 5 });
    const body = JSON.parse(merged.json().toString()) as { result: unknown[]; truncated: boolean };
    expect(body.result).toHaveLength(maxHeldTailRows);
    expect(body.truncated).toBe(true);
  });
});
