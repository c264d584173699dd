// The folders of src/ import downward only: every import of src/ (but the
// generated src/gen/) is checked against the one declared order of
// src/layers.json, and no folders import each other in a circle.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

interface LayerOrder {
  /** Folders (relative to src/, or a file directly in it), first layer first. */
  layers: string[][];
  /** Folders anyone may import; they import only each other. */
  leaves: string[];
}

/** A folder-to-folder import: `from` imports `to`, as the file `file` does. */
interface FolderImport {
  from: string;
  to: string;
  file: string;
}

const src = resolve(import.meta.dirname, "../../src");
const order = JSON.parse(readFileSync(join(src, "layers.json"), "utf8")) as LayerOrder;

/** The named folder `path` (relative to src/) belongs to: itself, its nearest named parent, or undefined. */
function folderOf(path: string, named: ReadonlySet<string>): string | undefined {
  const directory = dirname(path);
  if (directory === ".") return named.has(path) ? path : undefined;
  for (let folder = directory; folder !== "."; folder = dirname(folder)) {
    if (named.has(folder)) return folder;
  }
  return undefined;
}

/** Why each import breaks `layerOrder`: an upward or sideways import, a leaf importing a layer, or a circle. */
function layerViolations(imports: readonly FolderImport[], layerOrder: LayerOrder): string[] {
  const rank = new Map<string, number>();
  layerOrder.layers.forEach((layer, i) => {
    for (const folder of layer) rank.set(folder, i);
  });
  const leaves = new Set(layerOrder.leaves);
  const problems: string[] = [];
  const edges = new Map<string, Set<string>>();
  for (const { from, to, file } of imports) {
    if (from === to) continue;
    if (!edges.has(from)) edges.set(from, new Set());
    edges.get(from)!.add(to);
    if (leaves.has(to)) continue;
    if (leaves.has(from)) {
      problems.push(`${file}: the leaf ${from} imports ${to}, which is not a leaf`);
      continue;
    }
    const fromRank = rank.get(from)!;
    const toRank = rank.get(to)!;
    if (toRank === fromRank) problems.push(`${file}: ${from} imports ${to}, of the same layer`);
    if (toRank < fromRank) problems.push(`${file}: ${from} imports ${to}, of an earlier layer`);
  }
  // A circle between folders, whatever the order says: depth-first, a folder met again on the way is one.
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (folder: string) => {
    if (path.includes(folder)) {
      problems.push(
        `folders import each other in a circle: ${[...path.slice(path.indexOf(folder)), folder].join(" -> ")}`,
      );
      return;
    }
    if (done.has(folder)) return;
    path.push(folder);
    for (const next of edges.get(folder) ?? []) visit(next);
    path.pop();
    done.add(folder);
  };
  for (const folder of [...edges.keys()].sort()) visit(folder);
  return problems;
}

/** Every TypeScript file under `directory`, as paths relative to src/. */
function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [relative(src, path)] : [];
  });
}

describe("layers of src/", () => {
  const named = new Set([...order.layers.flat(), ...order.leaves]);
  const files = sourceFiles(src).filter((file) => !file.startsWith("gen/"));
  const imports: FolderImport[] = files.flatMap((file) =>
    ts
      .preProcessFile(readFileSync(join(src, file), "utf8"), true, true)
      .importedFiles.map((imported) => imported.fileName)
      .filter((name) => name.startsWith("."))
      .map((name) => {
        const target = relative(src, resolve(src, dirname(file), name));
        return { from: folderOf(file, named) ?? file, to: folderOf(target, named) ?? target, file };
      }),
  );

  it("names every folder once", () => {
    expect(files.filter((file) => folderOf(file, named) === undefined)).toEqual([]);
    expect(named.size).toBe(order.layers.flat().length + order.leaves.length);
  });

  it("sees the imports of the tree", () => {
    // A reader that found nothing would pass the checks below with any order.
    expect(imports.some((i) => i.from === "app" && i.to === "transport")).toBe(true);
    expect(imports.some((i) => i.from === "transport/http" && i.to === "transport/call")).toBe(true);
    expect(imports.some((i) => i.file === "auth/token-verifier.ts" && i.to === "observability")).toBe(true);
  });

  it("has every import of src/ go downward or to a leaf, with no circle", () => {
    expect(imports.filter((i) => !named.has(i.to) && !i.to.startsWith(".."))).toEqual([]);
    expect(layerViolations(imports, order)).toEqual([]);
  });
});

describe("the layer check", () => {
  const small: LayerOrder = { layers: [["app"], ["transport", "config"], ["warehouse"]], leaves: ["errors", "gen"] };
  const edge = (from: string, to: string): FolderImport => ({ from, to, file: `${from}/x.ts` });

  it("accepts downward imports, imports of leaves, and leaves importing leaves", () => {
    expect(
      layerViolations(
        [edge("app", "transport"), edge("app", "warehouse"), edge("transport", "errors"), edge("errors", "gen")],
        small,
      ),
    ).toEqual([]);
  });

  it.each([
    [
      "an upward import",
      [edge("warehouse", "transport")],
      ["warehouse/x.ts: warehouse imports transport, of an earlier layer"],
    ],
    [
      "a sideways import",
      [edge("transport", "config")],
      ["transport/x.ts: transport imports config, of the same layer"],
    ],
    [
      "a leaf importing a layer",
      [edge("errors", "warehouse")],
      ["errors/x.ts: the leaf errors imports warehouse, which is not a leaf"],
    ],
    [
      "a circle of leaves",
      [edge("errors", "gen"), edge("gen", "errors")],
      ["folders import each other in a circle: errors -> gen -> errors"],
    ],
  ])("refuses %s", (_label, imports, problems) => {
    expect(layerViolations(imports, small)).toEqual(problems);
  });

  it("reports the circle an upward import closes, besides the import", () => {
    expect(layerViolations([edge("app", "warehouse"), edge("warehouse", "app")], small)).toEqual([
      "warehouse/x.ts: warehouse imports app, of an earlier layer",
      "folders import each other in a circle: app -> warehouse -> app",
    ]);
  });
});
