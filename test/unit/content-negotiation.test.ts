// Choosing the body format from Accept and the content coding from Accept-Encoding.
import { describe, expect, it } from "vitest";
import {
  encodingFromAcceptEncoding,
  encodings,
  formatFromAccept,
  formatFromParameter,
  formats,
  zstdAvailable,
} from "../../src/transport/http/content-negotiation.js";

const format = (accept: string) => formats[formatFromAccept(accept)];
const encoding = (header: string) => encodings[encodingFromAcceptEncoding(header)];

describe("format negotiation", () => {
  it("reads json, csv and ndjson from the format parameter and nothing else", () => {
    expect(["json", "csv", "ndjson"].map((v) => formats[formatFromParameter(v)!])).toEqual(["json", "csv", "ndjson"]);
    expect(formatFromParameter("CSV")).toBeUndefined();
    expect(formatFromParameter("parquet")).toBeUndefined();
  });

  it("picks the supported media type with the highest q, the first among equals", () => {
    expect(format("text/csv")).toBe("csv");
    expect(format("application/x-ndjson")).toBe("ndjson");
    expect(format("application/json;q=0.5, text/csv;q=0.9")).toBe("csv");
    expect(format("application/x-ndjson, text/csv")).toBe("ndjson");
    expect(format("TEXT/CSV ; q=1")).toBe("csv");
  });

  it("answers JSON for a browser's Accept, for anything and for unsupported types", () => {
    expect(format("text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")).toBe("json");
    expect(format("*/*")).toBe("json");
    expect(format("image/png")).toBe("json");
    expect(format("text/csv;q=0")).toBe("json");
  });
});

describe("content coding negotiation", () => {
  it("prefers br, then zstd, then gzip among equal q values", () => {
    expect(encoding("gzip, deflate, br")).toBe("br");
    expect(encoding("gzip, zstd")).toBe(zstdAvailable ? "zstd" : "gzip");
    expect(encoding("gzip")).toBe("gzip");
  });

  it("follows q values and refuses codings with q=0", () => {
    expect(encoding("br;q=0.5, gzip;q=0.8")).toBe("gzip");
    expect(encoding("br;q=0, gzip")).toBe("gzip");
    expect(encoding("gzip;q=0")).toBe("identity");
  });

  it("sends identity when nothing it writes is accepted, and gzip for a wildcard", () => {
    expect(encoding("deflate")).toBe("identity");
    expect(encoding("identity")).toBe("identity");
    expect(encoding("")).toBe("identity");
    expect(encoding("*")).toBe("gzip");
    expect(encoding("gzip;q=0, *")).toBe("identity");
  });

  it("writes zstd only where Node has it", () => {
    expect(encoding("zstd")).toBe(zstdAvailable ? "zstd" : "identity");
  });
});
