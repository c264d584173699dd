// The links between the project's pages hold: every relative link in the
// README and docs/ names a file that exists and, after `#`, a heading of
// that page (GitHub's anchor of it), and every page the code cites
// (`docs/<page>.md`, `docs/<page>.md, "<section>"`) exists with that
// section, so that moving a section from one page to another cannot leave a
// link or a comment behind pointing at nothing.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");
const pages = [
  join(root, "README.md"),
  ...readdirSync(join(root, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => join(root, "docs", name)),
];

/** `markdown` without its fenced code blocks, where a `#` line is not a heading. */
const withoutFences = (markdown: string) => markdown.replace(/^```[\s\S]*?^```/gm, "");

/** The text of `markdown` outside code blocks and code spans, where a link is a link. */
const prose = (markdown: string) => withoutFences(markdown).replace(/`[^`\n]*`/g, "");

/** A page's headings as written, in order, without their `#`s. */
const headingsOf = (markdown: string) =>
  [...withoutFences(markdown).matchAll(/^#{1,6}\s+(.+)$/gm)].map((match) => match[1]!.trim());

/** GitHub's anchor of a heading: lower case, punctuation dropped, each space a hyphen. */
function anchorOf(heading: string): string {
  const text = heading.replace(/\[([^\]]*)\]\([^)]*\)/g, "$1");
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** The anchors of a page's headings; a repeated one gets -1, -2, ... as on GitHub. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const heading of headingsOf(markdown)) {
    const anchor = anchorOf(heading);
    const count = seen.get(anchor) ?? 0;
    seen.set(anchor, count + 1);
    anchors.add(count === 0 ? anchor : `${anchor}-${count}`);
  }
  return anchors;
}

/** Source files of the code, tests and scripts (not the packages or the build's output). */
function sourceFiles(): string[] {
  return ["src", "bench", "scripts", "test", "web"].flatMap((folder) =>
    readdirSync(join(root, folder), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && /\.(ts|mts|mjs|js)$/.test(entry.name))
      .map((entry) => join(entry.parentPath, entry.name))
      .filter((file) => !file.includes("node_modules") && file !== import.meta.filename),
  );
}

/** The pages (and sections) `text` cites; a section's words may run over comment lines. */
function citationsOf(text: string): { page: string; section?: string }[] {
  return [...text.matchAll(/docs\/([a-z0-9-]+\.md)(?:, "([^"]+)")?/g)].map((m) => ({
    page: m[1]!,
    section: m[2]?.replace(/\s*\n\s*(?:\/\/|\*)?\s*/g, " "),
  }));
}

/** `page`'s relative links (no scheme), as written. */
function linksOf(page: string): string[] {
  const targets = [...prose(readFileSync(page, "utf8")).matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
  return targets.filter((target) => !/^[a-z][a-z+.-]*:/i.test(target));
}

/** Why `target`, linked from `page`, leads nowhere; undefined when it holds. */
function brokenBecause(page: string, target: string): string | undefined {
  const [path, anchor] = target.split("#", 2) as [string, string | undefined];
  const file = path === "" ? page : join(dirname(page), decodeURIComponent(path));
  if (!existsSync(file)) return "no such file";
  if (anchor === undefined || !file.endsWith(".md")) return undefined;
  return anchorsOf(readFileSync(file, "utf8")).has(anchor) ? undefined : "no such heading";
}

describe("links between the project's pages", () => {
  it("computes GitHub's anchors of headings worked out by hand", () => {
    expect(anchorOf("Latest figures")).toBe("latest-figures");
    expect(anchorOf("Scale: usage.api-counts")).toBe("scale-usageapi-counts");
    expect(anchorOf("An eighth look: the gap, stage by stage")).toBe("an-eighth-look-the-gap-stage-by-stage");
    expect(anchorOf("`GET /` and the [explorer](explorer.md)")).toBe("get--and-the-explorer");
  });

  it("finds a link to a missing heading and a missing file", () => {
    const readme = join(root, "README.md");
    expect(brokenBecause(readme, "docs/performance.md#no-such-section")).toBe("no such heading");
    expect(brokenBecause(readme, "docs/no-such-page.md")).toBe("no such file");
    expect(brokenBecause(readme, "docs/performance.md#latest-figures")).toBeUndefined();
  });

  it("reads a citation whose section runs over two comment lines", () => {
    expect(citationsOf('// at start (docs/performance.md, "Start and\n// restart").')).toEqual([
      { page: "performance.md", section: "Start and restart" },
    ]);
  });

  it("the code cites only pages and sections that exist", () => {
    const broken = sourceFiles().flatMap((file) =>
      citationsOf(readFileSync(file, "utf8"))
        .filter(({ page, section }) => {
          const path = join(root, "docs", page);
          return (
            !existsSync(path) || (section !== undefined && !headingsOf(readFileSync(path, "utf8")).includes(section))
          );
        })
        .map((citation) => ({ file: relative(root, file), ...citation })),
    );
    expect(broken).toEqual([]);
  });

  it.each(pages.map((page) => [relative(root, page), page]))("%s links only to what exists", (_, page) => {
    const broken = linksOf(page)
      .map((target) => ({ target, why: brokenBecause(page, target) }))
      .filter((link) => link.why !== undefined);
    expect(broken).toEqual([]);
  });
});
