// Completes package-lock.json for `npm ci`: the npm registry mirror of this
// workplace serves only linux-x64 builds of the platform-specific optional
// packages (buf, chdb), so `npm install` leaves the others out of the lock and
// `npm ci` then calls the lock out of sync. This adds the entries a lock written
// elsewhere would have (without integrity; npm skips them on this platform).
// Run after changing dependencies: `npm run lock`.
import { readFileSync, writeFileSync } from "node:fs";
const lock = JSON.parse(readFileSync("package-lock.json", "utf8"));
const platforms = {
  "darwin-arm64": [["darwin"], ["arm64"]],
  "darwin-x64": [["darwin"], ["x64"]],
  "linux-armv7": [["linux"], ["arm"]],
  "linux-arm64-gnu": [["linux"], ["arm64"]],
  "win32-arm64": [["win32"], ["arm64"]],
  "win32-x64": [["win32"], ["x64"]],
};
let added = 0;
for (const [_path, entry] of Object.entries(lock.packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const key = `node_modules/${name}`;
    if (lock.packages[key]) continue;
    const platform = Object.keys(platforms).find((p) => name.endsWith(p));
    if (!platform) {
      console.log("unknown platform", name);
      continue;
    }
    const [os, cpu] = platforms[platform];
    lock.packages[key] = {
      version: version.replace(/^[\^~]/, ""),
      ...(entry.dev ? { dev: true } : {}),
      optional: true,
      os,
      cpu,
    };
    added++;
  }
}
writeFileSync("package-lock.json", `${JSON.stringify(lock, null, 2)}\n`);
console.log("added", added);
