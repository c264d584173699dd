// No file of src/ (but the generated src/gen/) imports itself through others:
// every relative import, `import type` and `export … from` included, is an
// edge, inside a folder as between folders, and no edges go round in a circle.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const src = resolve(import.meta.dirname, "../../src");

/** Every TypeScript file under `directory`, as paths relative to src/. */
function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [relative(src, path)] : [];
  });
}

/** The file of src/ a relative import names: `./x.js` is `x.ts`, a folder is its index.ts. */
function importedFile(file: string, name: string): string {
  const target = resolve(src, dirname(file), name);
  const candidates = [target.replace(/\.js$/, ".ts"), `${target}.ts`, join(target, "index.ts")];
  return relative(src, candidates.find((candidate) => existsSync(candidate)) ?? target);
}

/** The circles of `edges`: each group of two or more files that reach each other, or a file importing itself. */
function circles(edges: ReadonlyMap<string, readonly string[]>): string[][] {
  // Tarjan's strongly connected components: each one of more than a file is a circle, or several sharing files.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    for (const next of edges.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (stack.includes(next)) {
        low.set(file, Math.min(low.get(file)!, index.get(next)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || (edges.get(file) ?? []).includes(file)) found.push(component.sort());
  };
  for (const file of [...edges.keys()].sort()) if (!index.has(file)) visit(file);
  return found.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

describe("imports of src/", () => {
  const files = sourceFiles(src).filter((file) => !file.startsWith("gen/"));
  const edges = new Map(
    files.map((file) => [
      file,
      ts
        .preProcessFile(readFileSync(join(src, file), "utf8"), true, true)
        .importedFiles.map((imported) => imported.fileName)
        .filter((name) => name.startsWith("."))
        .map((name) => importedFile(file, name))
        .filter((target) => !target.startsWith("gen/")),
    ]),
  );

  it("sees the imports of the tree, inside folders too", () => {
    // A reader that found nothing would pass the check below.
    expect(edges.get("transport/single-port-server.ts")).toContain("transport/server/index.ts");
    expect(edges.get("transport/server/index.ts")).toContain("transport/server/session-idle.ts");
    // Every import names a file of the tree: one the resolver got wrong would hide its edges.
    const known = new Set(files);
    expect([...edges.values()].flat().filter((target) => !known.has(target))).toEqual([]);
  });

  it("has no circle of imports between files", () => {
    expect(circles(edges)).toEqual([]);
  });
});

describe("the circle check", () => {
  const graph = (pairs: [string, string][]) => {
    const edges = new Map<string, string[]>();
    for (const [from, to] of pairs) edges.set(from, [...(edges.get(from) ?? []), to]);
    return edges;
  };

  it("accepts imports that only go one way", () => {
    expect(
      circles(
        graph([
          ["a.ts", "b.ts"],
          ["b.ts", "c.ts"],
          ["a.ts", "c.ts"],
        ]),
      ),
    ).toEqual([]);
  });

  it("finds two files importing each other, a longer circle and a file importing itself", () => {
    expect(
      circles(
        graph([
          ["a.ts", "b.ts"],
          ["b.ts", "a.ts"],
          ["c.ts", "d.ts"],
          ["d.ts", "e.ts"],
          ["e.ts", "c.ts"],
          ["f.ts", "f.ts"],
        ]),
      ),
    ).toEqual([["a.ts", "b.ts"], ["c.ts", "d.ts", "e.ts"], ["f.ts"]]);
  });
});
