// No function in src/ (but the generated src/gen/) takes more than four
// parameters: past four, one value with named fields reads better.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const src = resolve(import.meta.dirname, "../../src");
const maxParameters = 4;

/** Every .ts file under `directory`, but src/gen. */
function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return path === join(src, "gen") ? [] : sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** A readable name for a function-like node: its own name, or the variable or property it is assigned to. */
function nameOf(node: ts.SignatureDeclarationBase, file: ts.SourceFile): string {
  if (ts.isConstructorDeclaration(node)) return "constructor";
  if (node.name) return node.name.getText(file);
  const parent = node.parent;
  if (
    parent &&
    (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))
  ) {
    return parent.name.getText(file);
  }
  return "(anonymous)";
}

/** `file:line name (count)` for each function in `text` with more than `limit` parameters. */
function wideFunctions(path: string, text: string, limit: number): string[] {
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isFunctionDeclaration(node) ||
      ts.isMethodDeclaration(node) ||
      ts.isArrowFunction(node) ||
      ts.isFunctionExpression(node) ||
      ts.isConstructorDeclaration(node)
    ) {
      if (node.parameters.length > limit) {
        const { line } = file.getLineAndCharacterOfPosition(node.getStart(file));
        found.push(`${path}:${line + 1} ${nameOf(node, file)} (${node.parameters.length})`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

describe("parameter count", () => {
  it("finds a function, a method, an arrow function and a constructor with five parameters", () => {
    const text = [
      "function f(a, b, c, d, e) {}",
      "class C { constructor(a, b, c, d, e) {} m(a, b, c, d, e) {} }",
      "const g = (a, b, c, d, e) => a;",
      "const h = (a, b, c, d) => a;",
    ].join("\n");
    expect(wideFunctions("x.ts", text, maxParameters)).toEqual([
      "x.ts:1 f (5)",
      "x.ts:2 constructor (5)",
      "x.ts:2 m (5)",
      "x.ts:3 g (5)",
    ]);
  });

  it("no function in src/ takes more than four parameters", () => {
    const wide = sourceFiles(src).flatMap((path) =>
      wideFunctions(relative(src, path), readFileSync(path, "utf8"), maxParameters),
    );
    expect(wide).toEqual([]);
  });
});
