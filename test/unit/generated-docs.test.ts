// The tables of docs/ generated from the code (scripts/docs.ts) are committed
// as `npm run docs` writes them: a variable, default or saved-query option
// changed without the documentation fails here.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { generatedDocs } from "../../scripts/docs.js";

const root = join(import.meta.dirname, "..", "..");

describe("the generated tables of docs/", () => {
  it.each(generatedDocs().map((doc) => [doc.path, doc.text]))("%s is as npm run docs writes it", (path, text) => {
    expect(readFileSync(join(root, path), "utf8"), "run npm run docs and commit the result").toBe(text);
  });

  it("lists every variable once, with the default readConfig fills in", () => {
    const configuration = readFileSync(join(root, "docs/configuration.md"), "utf8");
    // Worked out by hand from the variables' defaults: 64 KiB, 30 s, 4096 connections.
    expect(configuration).toContain("| `MAX_BODY_BYTES` | `65536` | 1 |");
    expect(configuration).toContain("| `MAX_QUERY_SECONDS` | `30` | 1 |");
    expect(configuration).toContain("| `MAX_CONNECTIONS` | `4096` | 1 |");
    expect(configuration.match(/^\| `PORT` \|/gm)).toHaveLength(1);
  });
});
