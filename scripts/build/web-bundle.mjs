// The explorer page (docs/explorer.md): web/explorer.ts bundled by esbuild
// for browsers, with its style sheet (its own and uPlot's) and web/index.html,
// into one directory, each file beside a gzip and a Brotli copy made once
// here so that the service sends them compressed without compressing.
// bundle.mjs makes it into dist/web/; the browser tests into a directory of
// their own.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { brotliCompress, constants as zlib, gzip } from "node:zlib";

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

/** The files of a built page, as the service serves them (src/transport/http/explorer-page.ts). */
export const explorerFiles = ["index.html", "explorer.js", "explorer.css"];

/**
 * Builds the page into `outdir`; returns the files it was made from
 * (relative to `root`), for the build's stamp.
 */
export async function buildExplorer(root, outdir) {
  const { build } = await import("esbuild");
  const result = await build({
    absWorkingDir: root,
    entryPoints: [{ in: "web/explorer.ts", out: "explorer" }],
    outdir,
    bundle: true,
    platform: "browser",
    format: "esm",
    target: ["chrome111", "firefox115", "safari16.4"],
    minify: true,
    // The licences of the bundled packages stay with them, in node_modules; the page stays small.
    legalComments: "none",
    metafile: true,
    logLevel: "warning",
  });
  mkdirSync(outdir, { recursive: true });
  copyFileSync(join(root, "web/index.html"), join(outdir, "index.html"));
  // In Node's thread pool, beside whatever else the build is doing.
  await Promise.all(
    explorerFiles.map(async (name) => {
      const bytes = readFileSync(join(outdir, name));
      const [gz, br] = await Promise.all([
        gzipped(bytes, { level: 9 }),
        brotli(bytes, {
          params: { [zlib.BROTLI_PARAM_QUALITY]: 11, [zlib.BROTLI_PARAM_SIZE_HINT]: bytes.length },
        }),
      ]);
      writeFileSync(join(outdir, `${name}.gz`), gz);
      writeFileSync(join(outdir, `${name}.br`), br);
    }),
  );
  const inputs = Object.keys(result.metafile.inputs).filter((path) => !path.startsWith("<"));
  return [...inputs, "web/index.html", "scripts/build/web-bundle.mjs"];
}
