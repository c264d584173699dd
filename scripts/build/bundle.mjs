// The bundles of dist/: one per command (dist/main.js, dist/cli/*.js), made
// by esbuild from src/ with the packages inside, so that Node reads one file
// at start instead of some 400 modules (docs/performance.md, "Start and
// restart"); and the explorer page, for browsers, in dist/web/
// (web-bundle.mjs). Some packages stay outside the commands' bundles: chdb
// (a native addon that finds its library by path), @clickhouse/client (so
// that it and chdb's connection share one copy of client-common), jose
// (loaded with the first token only) and OpenTelemetry's API and SDK
// (imported dynamically, and only when traces are exported:
// observability/otel-tracing.ts). Types are not checked here: `npm run typecheck` (part of `npm test`)
// does that.
//
// What the bundles were made from (esbuild's list of inputs, packages
// included, and the files that shape the build) is stamped in
// dist/.inputs.json (input-stamp.mjs). A new build is made beside dist/ and
// swapped in whole, so a failed one leaves the last good bundles in place.
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { compareWithStamp, forgetChangesSince, stampOf } from "./input-stamp.mjs";
import { buildExplorer } from "./web-bundle.mjs";

/** The commands, each bundled on its own: src/<name>.ts becomes dist/<name>.js. */
const entryPoints = ["main", "cli/migrate", "cli/seed", "cli/import", "cli/token"];
const external = ["chdb", "@clickhouse/client", "jose", "@opentelemetry/api", "@opentelemetry/sdk-node"];
/** Files that shape the bundles besides the sources esbuild reads. */
const buildFiles = [
  "package.json",
  "tsconfig.json",
  "node_modules/esbuild/package.json",
  "scripts/build/bundle.mjs",
  "scripts/build/input-stamp.mjs",
];

/** Whether dist/ holds every bundle and its inputs are as they were when it was made. */
export function bundlesAreUpToDate(root) {
  const stampFile = join(root, "dist/.inputs.json");
  try {
    const stamp = JSON.parse(readFileSync(stampFile, "utf8"));
    if (!stamp.outputs.every((path) => existsSync(join(root, path)))) return false;
    const comparison = compareWithStamp(root, stamp);
    // Touched, not changed: record the new times, so the next start need not hash again.
    if (comparison === "same contents")
      writeStamp(stampFile, { ...stampOf(root, Object.keys(stamp.files)), outputs: stamp.outputs });
    return comparison !== "changed";
  } catch {
    return false; // never built, or the stamp is damaged
  }
}

export async function makeBundles(root) {
  const started = Date.now();
  process.stderr.write("build: bundling src/ into dist/ with esbuild\n");
  const { build } = await import("esbuild");
  const staging = `dist.building-${process.pid}`;
  let result;
  let webInputs;
  try {
    // The explorer page served at GET / (dist/web/), built for browsers from web/ at the same time.
    [result, webInputs] = await Promise.all([
      build({
        absWorkingDir: root,
        entryPoints: entryPoints.map((name) => ({ in: `src/${name}.ts`, out: name })),
        outdir: staging,
        bundle: true,
        platform: "node",
        format: "esm",
        target: "node20",
        external,
        // CommonJS packages inside an ES module bundle call require() for Node's own modules.
        banner: {
          js: 'import { createRequire as __bundleCreateRequire } from "node:module"; const require = __bundleCreateRequire(import.meta.url);',
        },
        // Maps to src/ for stack traces under `node --enable-source-maps`.
        sourcemap: "linked",
        sourcesContent: false,
        metafile: true,
        logLevel: "warning",
      }),
      buildExplorer(root, join(root, staging, "web")),
    ]);
  } catch {
    rmSync(join(root, staging), { recursive: true, force: true });
    process.stderr.write("build: failed (esbuild's errors above); dist/ is left as it was\n");
    process.exit(1);
  }
  const sources = [
    ...new Set([...Object.keys(result.metafile.inputs).filter((path) => !path.startsWith("<")), ...webInputs]),
  ];
  const outputs = [
    ...Object.keys(result.metafile.outputs).map((path) => join("dist", relative(staging, path))),
    "dist/web/index.html",
    "dist/web/explorer.js",
    "dist/web/explorer.css",
  ];
  const stamp = stampOf(root, [...sources, ...buildFiles.filter((path) => existsSync(join(root, path)))]);
  forgetChangesSince(stamp, started);
  writeStamp(join(root, staging, ".inputs.json"), { ...stamp, outputs });
  // Swapped in whole: never a mix of old and new bundles.
  const previous = `dist.previous-${process.pid}`;
  if (existsSync(join(root, "dist"))) renameSync(join(root, "dist"), join(root, previous));
  renameSync(join(root, staging), join(root, "dist"));
  rmSync(join(root, previous), { recursive: true, force: true });
  // The commands' bundles; the explorer page beside them is not one to run.
  const bundles = outputs.filter((path) => path.endsWith(".js") && !path.startsWith("dist/web/")).length;
  process.stderr.write(
    `build: ${bundles} bundles from ${sources.length} files in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
  );
}

function writeStamp(path, stamp) {
  writeFileSync(path, `${JSON.stringify(stamp, null, 1)}\n`);
}
