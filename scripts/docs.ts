// `npm run docs`: writes the tables of docs/ that are generated from the
// code (the configuration variables, the saved queries' definitions and
// parameter rules) between their marker comments; the prose around them is
// written by hand. test/unit/generated-docs.test.ts fails when a committed
// table differs from what this would write.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { readCommandLine } from "../src/cli/command-line.js";
import { configurationTables } from "../src/config/index.js";
import { createEndpointRegistry, endpointTables, savedQueryServices } from "../src/endpoints/index.js";

const root = join(import.meta.dirname, "..");

/** Each generated document: its path from the repository root, and its text with the tables written in. */
export function generatedDocs(): { path: string; text: string }[] {
  const config = configurationTables();
  const endpoints = endpointTables(createEndpointRegistry({ services: savedQueryServices }));
  const tables: Record<string, Record<string, string>> = {
    "docs/configuration.md": {
      listening: config.Listening,
      keys: config.Keys,
      warehouse: config.Warehouse,
      logging: config.Logging,
      browsers: config.Browsers,
      bounds: config.Bounds,
    },
    "docs/endpoints.md": { definitions: endpoints.definitions, "parameter rules": endpoints.parameters },
  };
  return Object.entries(tables).map(([path, sections]) => {
    let text = readFileSync(join(root, path), "utf8");
    for (const [name, table] of Object.entries(sections)) text = spliced(text, path, name, table);
    return { path, text };
  });
}

/**
 * `text` with what lies between `<!-- generated: NAME (npm run docs) -->`
 * and `<!-- end: NAME -->` replaced by `table`.
 */
function spliced(text: string, path: string, name: string, table: string): string {
  const begin = `<!-- generated: ${name} (npm run docs) -->\n`;
  const end = `<!-- end: ${name} -->`;
  const from = text.indexOf(begin);
  const to = text.indexOf(end, from);
  if (from < 0 || to < 0) throw new Error(`${path} has no "${begin.trim()}" ... "${end}" markers`);
  return `${text.slice(0, from + begin.length)}${table}\n${text.slice(to)}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = readCommandLine({
    usage: `usage: tsx scripts/docs.ts [--check]      (npm run docs)

Writes the tables of docs/configuration.md and docs/endpoints.md that are
generated from src/config/variables.ts and the saved queries' proto options,
between their marker comments; the prose around them is left as it is.

options:
  --check      write nothing; list the documents that differ and exit 1 if any does
  -h, --help   print this and exit`,
    options: { check: { type: "boolean" } },
  });
  const stale = generatedDocs().filter(({ path, text }) => readFileSync(join(root, path), "utf8") !== text);
  for (const { path, text } of stale) {
    if (values.check === true) {
      process.stdout.write(`${path} differs from what npm run docs writes\n`);
    } else {
      writeFileSync(join(root, path), text);
      process.stdout.write(`wrote ${path}\n`);
    }
  }
  if (values.check === true && stale.length > 0) process.exitCode = 1;
}
