// What a build was made from, to tell whether it is up to date: each input's
// modification time and size, and a hash of their contents. Times and sizes
// all as recorded is the quick answer (a stat per file); when any differs,
// the contents decide, so a file touched without a change (a checkout, a
// copy) costs a hash and no rebuild, and an edit that kept the time of an
// older file (`cp -p`, a restored archive) is still seen.
import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";

/** The stamp of `paths` (relative to `root`) as they are now. */
export function stampOf(root, paths) {
  const files = {};
  for (const path of paths) {
    const stat = statSync(join(root, path));
    files[path] = [stat.mtimeMs, stat.size];
  }
  return { files, hash: contentHash(root, paths) };
}

/**
 * Whether the inputs are as `stamp` recorded them: "same" (times and sizes
 * alike), "same contents" (touched, not changed: the caller may record the
 * new times), or "changed" (an input changed or is gone).
 */
export function compareWithStamp(root, stamp) {
  const paths = Object.keys(stamp.files);
  let touched = false;
  for (const path of paths) {
    const stat = statSync(join(root, path), { throwIfNoEntry: false });
    if (stat === undefined) return "changed";
    const [mtimeMs, size] = stamp.files[path];
    if (stat.size !== size) return "changed";
    if (stat.mtimeMs !== mtimeMs) touched = true;
  }
  if (!touched) return "same";
  return contentHash(root, paths) === stamp.hash ? "same contents" : "changed";
}

/**
 * Records the inputs modified at or after `time` (ms since the epoch: when
 * the build began reading them) as unknown, so that the next comparison
 * finds them changed: what the build read of them is not known.
 */
export function forgetChangesSince(stamp, time) {
  for (const recorded of Object.values(stamp.files)) {
    if (recorded[0] >= time) {
      recorded[0] = -1;
      stamp.hash = "";
    }
  }
}

function contentHash(root, paths) {
  const hash = createHash("sha256");
  for (const path of [...paths].sort())
    hash
      .update(path)
      .update("\0")
      .update(readFileSync(join(root, path)))
      .update("\0");
  return hash.digest("hex");
}
