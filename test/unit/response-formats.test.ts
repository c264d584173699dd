// CSV and NDJSON bodies from a JSON body, compression, and bodies made once
// per format and coding and kept with the result.
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import {
  createEndpointRegistry,
  savedQueryServices,
  type BodyName,
  type ComputedResponse,
} from "../../src/endpoints/index.js";
import { CSV_FORMAT, JSON_FORMAT, NDJSON_FORMAT } from "../../src/transport/http/content-negotiation.js";
import { ndjsonFromJsonBody } from "../../src/transport/http/body-formats.js";
import { csvFromJsonBody } from "../../src/transport/http/csv-body.js";
import { createCompressor, createResponseBodies } from "../../src/transport/http/response-body.js";
import { readCsv } from "../support/csv-reader.js";

const rows = [
  {
    timestamp: "2026-11-20T21:59:00.123Z",
    id: "a",
    event_message: 'GET | 200 | /rest, "quoted"\nnext',
    metadata: [{ k: "v,w" }],
  },
  { timestamp: null, id: "b", event_message: "plain", metadata: [] },
];
const json = Buffer.from(JSON.stringify({ result: rows }));

describe("CSV body", () => {
  it("writes a header line and one RFC 4180 line per row, metadata as its JSON text", () => {
    const csv = csvFromJsonBody(json, ["timestamp", "id", "event_message", "metadata"]).toString();
    expect(csv).toBe(
      "timestamp,id,event_message,metadata\r\n" +
        '2026-11-20T21:59:00.123Z,a,"GET | 200 | /rest, ""quoted""\nnext","[{""k"":""v,w""}]"\r\n' +
        ",b,plain,[]\r\n",
    );
    expect(readCsv(csv)).toEqual([
      ["timestamp", "id", "event_message", "metadata"],
      ["2026-11-20T21:59:00.123Z", "a", 'GET | 200 | /rest, "quoted"\nnext', '[{"k":"v,w"}]'],
      ["", "b", "plain", "[]"],
    ]);
  });

  it("writes numbers as JSON writes them and the header alone when there are no rows", () => {
    const counts = Buffer.from('{"result":[{"count":12,"avg":2.5}]}');
    expect(csvFromJsonBody(counts, ["count", "avg"]).toString()).toBe("count,avg\r\n12,2.5\r\n");
    expect(csvFromJsonBody(Buffer.from('{"result":[]}'), ["count", "avg"]).toString()).toBe("count,avg\r\n");
  });
});

describe("NDJSON body", () => {
  it("writes each row of the JSON body on its own line", () => {
    const lines = ndjsonFromJsonBody(json).toString().split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[2]).toBe("");
    expect(lines.slice(0, 2).map((line) => JSON.parse(line))).toEqual(rows);
    expect(ndjsonFromJsonBody(Buffer.from('{"result":[]}')).length).toBe(0);
  });
});

describe("compression", () => {
  it("writes gzip and brotli that decompress to the body", () => {
    const compress = createCompressor();
    expect(gunzipSync(compress(json, 1)).equals(json)).toBe(true);
    expect(brotliDecompressSync(compress(json, 3)).equals(json)).toBe(true);
    expect(compress(json, 0)).toBe(json);
  });
});

describe("response bodies", () => {
  const endpoint = createEndpointRegistry({ services: savedQueryServices }).find("logs.all")!;

  /** A result that counts the bodies it is asked to keep. */
  function result() {
    const bodies = new Map<BodyName, Buffer>();
    const kept: BodyName[] = [];
    const response: ComputedResponse = {
      message: () => {
        throw new Error("not used");
      },
      json: () => json,
      rowsTag: () => "tag",
      body: (name) => bodies.get(name),
      keepBody: (name, body) => {
        bodies.set(name, body);
        kept.push(name);
      },
      computation: {
        warehouseMs: 0,
        serializeMs: 0,
        computedAt: 0,
        truncation: { truncated: false, rowsBeforeLimitAtLeast: 0 },
      },
    };
    return { response, kept };
  }

  it("compresses a body once per coding and format, then answers it ready", () => {
    let compressions = 0;
    const compress = createCompressor();
    const bodies = createResponseBodies((body, encoding) => {
      compressions += 1;
      return compress(body, encoding);
    });
    const { response, kept } = result();
    expect(bodies.ready(response, JSON_FORMAT, 0)).toBe(json);
    expect(bodies.ready(response, JSON_FORMAT, 1)).toBeUndefined();
    const gzip = bodies.make(response, endpoint, JSON_FORMAT, 1);
    expect(bodies.make(response, endpoint, JSON_FORMAT, 1)).toBe(gzip);
    expect(bodies.ready(response, JSON_FORMAT, 1)).toBe(gzip);
    expect(compressions).toBe(1);
    // A gzip CSV body keeps the CSV body too, made once.
    const csvGzip = bodies.make(response, endpoint, CSV_FORMAT, 1);
    bodies.make(response, endpoint, CSV_FORMAT, 0);
    expect(compressions).toBe(2);
    expect(kept).toHaveLength(3);
    expect(readCsv(gunzipSync(csvGzip).toString())[0]).toEqual(endpoint.rowSchema.fields.map((f) => f.name));
    expect(bodies.make(response, endpoint, NDJSON_FORMAT, 0).toString().split("\n")).toHaveLength(3);
  });
});
