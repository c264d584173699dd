// `npm run build` (and the start, migrate and seed scripts): brings src/gen/
// and dist/ up to date, doing only what is out of date. src/gen/ is generated
// again only when proto/, the buf configuration or the generator changed
// since it was made (a hash of them is kept in src/gen/); dist/ is compiled by
// `tsc -b`, which compiles only what changed, and not even started when its
// build info is newer than everything under src/ and tsconfig.json (a walk of
// mtimes is quicker than starting the compiler). `--generate-only` stops
// after src/gen/. `--then dist/x.js [args...]` runs that built script next in
// this same process, with the args as its own: a restart starts Node once,
// not twice.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { delimiter, join, relative } from "node:path";
import { pathToFileURL } from "node:url";

const root = join(import.meta.dirname, "..");
const stampFile = join(root, "src/gen/.inputs.sha256");

/** Every file under `dir`, sorted, so the hash does not depend on directory order. */
function filesUnder(dir) {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

/** A hash of what src/gen/ is made from: the protos, buf's configuration, the generator's version. */
function generationInputsHash() {
  const hash = createHash("sha256");
  const inputs = [
    ...filesUnder(join(root, "proto")),
    join(root, "buf.yaml"),
    join(root, "buf.gen.yaml"),
    join(root, "node_modules/@bufbuild/protoc-gen-es/package.json"),
    join(root, "node_modules/@bufbuild/buf/package.json"),
  ];
  for (const file of inputs) {
    if (!existsSync(file)) continue;
    hash.update(relative(root, file)).update("\0").update(readFileSync(file)).update("\0");
  }
  return hash.digest("hex");
}

/** The latest mtime of `dir`, everything under it (directories too: a removed file changes its directory) and `extra`. */
function newestChange(dir, extra) {
  const paths = [dir, ...readdirSync(dir, { recursive: true }).map((name) => join(dir, name)), ...extra];
  return Math.max(...paths.map((path) => statSync(path).mtimeMs));
}

/** Whether dist/ was built after the last change of its sources. */
function distIsUpToDate() {
  const buildInfo = join(root, "dist/.tsbuildinfo");
  if (!existsSync(buildInfo)) return false;
  return statSync(buildInfo).mtimeMs > newestChange(join(root, "src"), [join(root, "tsconfig.json")]);
}

function run(command, args) {
  // buf finds protoc-gen-es on PATH, as under `npm run`.
  const env = { ...process.env, PATH: `${join(root, "node_modules/.bin")}${delimiter}${process.env.PATH ?? ""}` };
  const result = spawnSync(command, args, { cwd: root, stdio: "inherit", env });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const inputsHash = generationInputsHash();
const stamp = existsSync(stampFile) ? readFileSync(stampFile, "utf8").trim() : undefined;
if (stamp !== inputsHash) {
  process.stderr.write("build: generating src/gen/ from proto/\n");
  run(join(root, "node_modules/.bin/buf"), ["generate"]);
  writeFileSync(stampFile, `${inputsHash}\n`);
}
if (!process.argv.includes("--generate-only") && !distIsUpToDate()) {
  run(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-b", "tsconfig.json"]);
  // tsc leaves its build info alone when it finds a newer file unchanged; mark dist/ as checked now.
  const now = new Date();
  utimesSync(join(root, "dist/.tsbuildinfo"), now, now);
}

const thenAt = process.argv.indexOf("--then");
if (thenAt >= 0) {
  const script = join(root, process.argv[thenAt + 1]);
  process.argv = [process.argv[0], script, ...process.argv.slice(thenAt + 2)];
  await import(pathToFileURL(script).href);
}
