// docs/architecture.md stays true to the tree: every file and folder it names
// exists, and its table of folders lists the layers of src/layers.json in
// the file's order, leaves last.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");
const src = join(root, "src");
const doc = readFileSync(join(root, "docs/architecture.md"), "utf8");
const order = JSON.parse(readFileSync(join(src, "layers.json"), "utf8")) as { layers: string[][]; leaves: string[] };

/** Folders of the repository a named path may start with; any other path is relative to src/. */
const topFolders = ["src", "test", "bench", "scripts", "web", "sql", "proto", "docs"];

/** Every file name under src/, for names written without their folder (`csv-body.ts` after `transport/http/...`). */
function fileNames(directory: string): Set<string> {
  return new Set(
    readdirSync(directory, { withFileTypes: true, recursive: true })
      .filter((entry) => entry.isFile())
      .map((entry) => entry.name),
  );
}

/** The names in `text` that are missing from the tree: files (with an extension) and folders (ending in /). */
function missingPaths(names: readonly string[]): string[] {
  const bare = fileNames(src);
  return names.filter((name) => {
    if (!name.includes("/")) return !bare.has(name);
    const fromRoot = topFolders.some((folder) => name.startsWith(`${folder}/`));
    return !existsSync(join(fromRoot ? root : src, name));
  });
}

/** The code spans of `text` that name a file or a folder of the tree: no placeholder (`<name>`), no URL path, no build output. */
function namedPaths(text: string): string[] {
  const spans = [...text.matchAll(/`([^`\s]+)`/g)].map((match) => match[1]!);
  return [
    ...new Set(
      spans.filter(
        (span) =>
          !span.includes("<") &&
          !span.startsWith("/") &&
          !span.startsWith("dist/") &&
          (/^[\w.-]+(\/[\w.-]+)*\.(ts|json|sql|proto|mjs|md)$/.test(span) || /^[\w-]+(\/[\w-]+)*\/$/.test(span)),
      ),
    ),
  ];
}

/** The first column of the table of folders, each row's code spans without their trailing slash. */
function tableLayers(text: string): string[][] {
  const section = text.slice(text.indexOf("## The folders"), text.indexOf("\n## ", text.indexOf("## The folders") + 1));
  return section
    .split("\n")
    .filter((line) => line.startsWith("| `"))
    .map((line) => [...line.split("|")[1]!.matchAll(/`([^`]+)`/g)].map((match) => match[1]!.replace(/\/$/, "")));
}

describe("docs/architecture.md", () => {
  const names = namedPaths(doc);

  it("names files of every kind it should see", () => {
    // A reader that found nothing would pass the check below.
    expect(names).toEqual(
      expect.arrayContaining([
        "cache/entry-store.ts",
        "transport/rpc/rpc-gate.ts",
        "src/layers.json",
        "test/unit/layers.test.ts",
        "csv-body.ts",
        "transport/grpc/",
      ]),
    );
    expect(names.length).toBeGreaterThan(60);
  });

  it("names only files and folders that exist", () => {
    expect(missingPaths(names)).toEqual([]);
  });

  it("would notice a name that does not exist", () => {
    expect(missingPaths(["endpoints/no-such-file.ts", "no-such-file.ts", "src/no-such-folder/", "cache/"])).toEqual([
      "endpoints/no-such-file.ts",
      "no-such-file.ts",
      "src/no-such-folder/",
    ]);
  });

  it("lists the layers of src/layers.json in its order, leaves last", () => {
    expect(tableLayers(doc)).toEqual([...order.layers, order.leaves]);
  });
});
