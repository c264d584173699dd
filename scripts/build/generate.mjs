// src/gen/: the TypeScript that buf and protoc-gen-es generate from proto/,
// made again only when proto/, buf's configuration or the generator changed
// since it was made (a hash of them is kept in src/gen/.inputs.sha256).
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { delimiter, join, relative } from "node:path";

export function generateIfChanged(root) {
  const stampFile = join(root, "src/gen/.inputs.sha256");
  const inputsHash = generationInputsHash(root);
  const stamp = existsSync(stampFile) ? readFileSync(stampFile, "utf8").trim() : undefined;
  if (stamp === inputsHash) return;
  process.stderr.write("build: generating src/gen/ from proto/\n");
  // buf finds protoc-gen-es on PATH, as under `npm run`.
  const env = { ...process.env, PATH: `${join(root, "node_modules/.bin")}${delimiter}${process.env.PATH ?? ""}` };
  const result = spawnSync(join(root, "node_modules/.bin/buf"), ["generate"], { cwd: root, stdio: "inherit", env });
  if (result.status !== 0) process.exit(result.status ?? 1);
  writeFileSync(stampFile, `${inputsHash}\n`);
}

/** A hash of what src/gen/ is made from: the protos, buf's configuration, the generator's version. */
function generationInputsHash(root) {
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

/** Every file under `dir`, sorted, so the hash does not depend on directory order. */
function filesUnder(dir) {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}
