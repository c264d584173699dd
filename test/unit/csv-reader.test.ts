// The tests' own RFC 4180 reader, on the cases a CSV writer gets wrong,
// before it is trusted to check the service's CSV bodies.
import { describe, expect, it } from "vitest";
import { readCsv } from "../support/csv-reader.js";

describe("test CSV reader", () => {
  it("reads plain records ended by CRLF or LF, with empty fields", () => {
    expect(readCsv("a,b,c\r\n1,,3\n")).toEqual([
      ["a", "b", "c"],
      ["1", "", "3"],
    ]);
  });

  it("reads quoted fields with commas, doubled quotes and line breaks", () => {
    expect(readCsv('x,"a,b","say ""hi""","line1\r\nline2"\r\n')).toEqual([["x", "a,b", 'say "hi"', "line1\r\nline2"]]);
  });

  it("reads a last record without a line end and an empty quoted field", () => {
    expect(readCsv('1,""')).toEqual([["1", ""]]);
  });

  it("refuses a quote inside an unquoted field, text after a closing quote and an open quote", () => {
    expect(() => readCsv('ab"c\r\n')).toThrow(/quote inside/);
    expect(() => readCsv('"ab"c\r\n')).toThrow(/after a closing quote/);
    expect(() => readCsv('"abc\r\n')).toThrow(/unterminated/);
  });
});
