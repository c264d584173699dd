// Reading a warehouse answer written as one JSON array of rows, and refusing
// anything else: the shapes below are what chDB 3.4 was seen to send.
import { describe, expect, it } from "vitest";
import { readResultRows, readWarehouseAnswer } from "../../src/executor/result-rows.js";

describe("readResultRows", () => {
  it("reads one array of rows, empty or not", () => {
    expect(readResultRows('[\n{"one":1},\n{"one":2}\n]\n')).toEqual([{ one: 1 }, { one: 2 }]);
    expect(readResultRows("[\n\n]\n")).toEqual([]);
  });

  it("refuses an answer with a failed query's output in front of it", () => {
    // A whole empty array left by a query stopped at its deadline.
    expect(readResultRows('[\n\n]\n[\n{"one":1}\n]\n')).toBeUndefined();
    // Rows of an array that was cut when its query failed.
    expect(readResultRows('[\n{"leaked":0},\n{"leaked":1},\n[\n{"one":1}\n]\n')).toBeUndefined();
    // Rows of a plain JSONEachRow query (a migration, say).
    expect(readResultRows('{"leaked":0}\n[\n{"one":1}\n]\n')).toBeUndefined();
    // Just the opening bracket of a cut array.
    expect(readResultRows('[\n[\n{"one":1}\n]\n')).toBeUndefined();
  });

  it("refuses JSON that is not an array of objects", () => {
    expect(readResultRows('{"one":1}\n')).toBeUndefined();
    expect(readResultRows("[1,2]")).toBeUndefined();
    expect(readResultRows("[null]")).toBeUndefined();
    expect(readResultRows("[[1]]")).toBeUndefined();
    expect(readResultRows("")).toBeUndefined();
  });
});

describe("readWarehouseAnswer", () => {
  it("reads rows_before_limit_at_least beside the rows and statistics, and leaves it out when absent", () => {
    const document = {
      meta: [{ name: "n", type: "UInt64" }],
      data: [{ n: 0 }, { n: 1 }],
      rows: 2,
      rows_before_limit_at_least: 100,
      statistics: { elapsed: 0.5, rows_read: 100, bytes_read: 800 },
    };
    expect(readWarehouseAnswer(JSON.stringify(document))).toEqual({
      rows: [{ n: 0 }, { n: 1 }],
      statistics: { rowsRead: 100, bytesRead: 800, elapsedMs: 500 },
      rowsBeforeLimit: 100,
    });
    const { rows_before_limit_at_least: _, ...without } = document;
    expect(readWarehouseAnswer(JSON.stringify(without))).not.toHaveProperty("rowsBeforeLimit");
  });
});
