// The commands as `npm start` and `npm run <command>` run them: the bundles in
// dist/, built once before the tests by their global setup (build-once.ts).
// Node reads one file at start instead of compiling some 400 modules of src/.
import { join } from "node:path";

/** The project's root: the bundles find sql/ and dist/web/ from there, as in the image. */
export const projectRoot = join(import.meta.dirname, "../..");

/** The commands that have a bundle, by their source under src/. */
export type BuiltCommand = "main" | "cli/migrate" | "cli/seed" | "cli/import" | "cli/token";

/** The path of `command`'s bundle (dist/main.js, dist/cli/import.js, ...). */
export function bundleOf(command: BuiltCommand): string {
  return join(projectRoot, "dist", `${command}.js`);
}
