// The table of variables written out: as the Markdown tables of
// docs/configuration.md (`npm run docs`) and as the `--help` of the service.
import { type Section, shownDefault, type Variable } from "./variable.js";
import { variables } from "./variables.js";

const all = Object.values(variables) as Variable<unknown>[];
const sections: Section[] = ["Listening", "Keys", "Warehouse", "Logging", "Browsers", "Bounds"];

/** Each section's Markdown table, as docs/configuration.md holds it; the bounds with the least value each takes. */
export function configurationTables(): Record<Section, string> {
  const tables = {} as Record<Section, string>;
  for (const section of sections) {
    const withLeast = section === "Bounds";
    const lines = withLeast
      ? ["| variable | default | least | meaning |", "|---|---|---|---|"]
      : ["| variable | default | meaning |", "|---|---|---|"];
    for (const v of all.filter((v) => v.section === section)) {
      const least = withLeast ? [String(v.parser.least ?? "")] : [];
      lines.push(`| ${[`\`${v.name}\``, shownDefault(v), ...least, v.description].join(" | ")} |`);
    }
    tables[section] = lines.join("\n");
  }
  return tables;
}

/** The variables as `--help` lists them: by section, each with its default and meaning in plain text. */
export function configurationHelp(width = 80): string {
  const out: string[] = [];
  for (const section of sections) {
    out.push(`${out.length === 0 ? "" : "\n"}environment, ${section.toLowerCase()}:`);
    for (const v of all.filter((v) => v.section === section)) {
      const shown = plain(shownDefault(v));
      out.push(`  ${v.name}${/^\((none|unset)\)$/.test(shown) ? "" : `  default ${shown}`}`);
      out.push(...wrap(plain(v.description), width - 6).map((line) => `      ${line}`));
    }
  }
  return out.join("\n");
}

/** Markdown to plain text: code marks dropped, a link as its text. */
function plain(markdown: string): string {
  return markdown.replaceAll("`", "").replace(/\[([^\]]+)\]\([^)]*\)/g, "$1");
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line !== "" && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === "" ? word : `${line} ${word}`;
    }
  }
  if (line !== "") lines.push(line);
  return lines;
}
