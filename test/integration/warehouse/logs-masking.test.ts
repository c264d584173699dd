// What logs.all's SQL masks, on the embedded engine: addresses in
// event_message and metadata, the scalar values of the marked metadata keys,
// and what it leaves (times, identifiers, version numbers, unmarked keys).
// Each case's masked text is written out by hand.
import { create } from "@bufbuild/protobuf";
import { beforeAll, describe, expect, it } from "vitest";
import type { LogRecord } from "../../../src/gen/logs/v1/logs_pb.js";
import { insertRows, ts } from "../../support/embedded-warehouse.js";
import { useQueryStack } from "../../support/query-stack.js";

const NOW = Date.UTC(2026, 10, 20, 12, 34, 56, 789);
const setup = useQueryStack(NOW);

/** [text as stored, text as a masked caller reads it]. */
const texts: [string, string][] = [
  ["from 203.0.113.7 ok", "from 0.0.0.0 ok"],
  ["203.0.113.7:443", "0.0.0.0:443"],
  ["10.0.0.1,10.0.0.2", "0.0.0.0,0.0.0.0"],
  ["192.168.001.001", "0.0.0.0"],
  ["2001:db8::1", "::"],
  ["[2001:db8:85a3::8a2e:370:7334]:443", "[::]:443"],
  ["2001:0db8:0000:0000:0000:ff00:0042:8329", "::"],
  ["fe80::1%eth0", "::%eth0"],
  ["::1", "::"],
  ["::ffff:192.0.2.1", "::"],
  ["64:ff9b::192.0.2.33", "::"],
  ["ip=fe80:: end", "ip=:: end"],
  // Not addresses: left as they are.
  ["at 2026-11-20T21:59:00.123456Z", "at 2026-11-20T21:59:00.123456Z"],
  ["std::vector and foo::bar", "std::vector and foo::bar"],
  ["mac aa:bb:cc:dd:ee:ff", "mac aa:bb:cc:dd:ee:ff"],
  ["Chrome/120.0.6099.109", "Chrome/120.0.6099.109"],
  ["999.1.1.1 and 256.1.1.1", "999.1.1.1 and 256.1.1.1"],
  ["0b6c4f3e-8a1c-4f3e-b5d7-9e1f3a5c7b9d", "0b6c4f3e-8a1c-4f3e-b5d7-9e1f3a5c7b9d"],
];

/** [metadata as stored, as a masked caller reads it], each one object. */
const metadata: [object, object][] = [
  [{ x_forwarded_for: "203.0.113.7, 10.1.2.3" }, { x_forwarded_for: "[masked]" }],
  [{ "cf-connecting-ip": "2001:db8::9" }, { "cf-connecting-ip": "[masked]" }],
  [{ user_agent: 'curl/8.4 "quoted" \\ back' }, { user_agent: "[masked]" }],
  [
    { latitude: -12.5e1, longitude: 3, email: null, city: true },
    { latitude: "[masked]", longitude: "[masked]", email: "[masked]", city: "[masked]" },
  ],
  [
    { request: [{ headers: [{ x_real_ip: "198.51.100.1" }] }] },
    { request: [{ headers: [{ x_real_ip: "[masked]" }] }] },
  ],
  // An unmarked key keeps its value, but for the addresses in it.
  [
    { user_agent_family: "curl", peer: "198.51.100.1" },
    { user_agent_family: "curl", peer: "0.0.0.0" },
  ],
  // A marked key inside a string value is text, not a key.
  [{ note: 'said "email": "a@b.c"' }, { note: 'said "email": "a@b.c"' }],
  // An object under a marked key is not a scalar: only its addresses go.
  [{ city: { name: "Lisbon", via: "10.0.0.1" } }, { city: { name: "Lisbon", via: "0.0.0.0" } }],
];

const project = "masking";
beforeAll(async () => {
  const rows = [
    ...texts.map(([text], i) => ({ id: `t${String(i).padStart(2, "0")}`, event_message: text, metadata: [{ text }] })),
    ...metadata.map(([object], i) => ({ id: `m${String(i).padStart(2, "0")}`, event_message: "", metadata: [object] })),
  ];
  await insertRows(
    setup.warehouse(),
    "edge_logs",
    rows.map((row, i) => ({ ...row, project, timestamp: ts(NOW - 60_000, i), metadata: JSON.stringify(row.metadata) })),
  );
});

async function records(unmasked: boolean): Promise<Map<string, LogRecord>> {
  const { registry, service } = setup.stack();
  const endpoint = registry.find("logs.all")!;
  const request = create(endpoint.method.input, { project } as never);
  const result = await service.run(endpoint, request, {}, unmasked ? { unmasked: true } : {});
  const rows = (result.message() as unknown as { result: LogRecord[] }).result;
  return new Map(rows.map((r) => [r.id, r]));
}

describe("logs.all for a masked caller", () => {
  it.each(texts.map(([stored, masked], i) => [stored, masked, `t${String(i).padStart(2, "0")}`]))(
    "reads %j as %j in event_message and in metadata",
    async (_stored, masked, id) => {
      const record = (await records(false)).get(id)!;
      expect(record.eventMessage).toBe(masked);
      expect(record.metadata).toEqual([{ text: masked }]);
    },
  );

  it.each(metadata.map(([stored, masked], i) => [stored, masked, `m${String(i).padStart(2, "0")}`]))(
    "reads metadata %j as %j",
    async (_stored, masked, id) => {
      expect((await records(false)).get(id)!.metadata).toEqual([masked]);
    },
  );
});

describe("logs.all for an unmasked caller", () => {
  it("reads every record as stored", async () => {
    const read = await records(true);
    for (const [i, [text]] of texts.entries()) {
      const record = read.get(`t${String(i).padStart(2, "0")}`)!;
      expect([record.eventMessage, record.metadata]).toEqual([text, [{ text }]]);
    }
    for (const [i, [object]] of metadata.entries()) {
      expect(read.get(`m${String(i).padStart(2, "0")}`)!.metadata).toEqual([object]);
    }
  });
});
