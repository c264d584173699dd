// Restart to ready on the loaded data directory, first, on a machine the
// later loads have not yet heated: `npm start` as a user runs it (an
// up-to-date build skipped), the bundle alone, and the floor of any service
// on the embedded engine (bench/baseline-start.mjs), in turns.
import type { Section } from "../context.js";
import { median } from "../report.js";
import { restartTimes } from "../restart.js";
import { root } from "../processes.js";

export const restartSection: Section = {
  name: "restart",
  async run(context, report) {
    const runs = context.smoke ? 3 : 10;
    context.progress(`restart to ready: ${runs} starts of each command, in turns`);
    const data = context.freshData("restart");
    const env = { PORT: "0", API_KEYS: context.key, CHDB_PATH: data, LOG_LEVEL: "warn" };
    const restarts = await restartTimes(
      [
        { label: "npm", command: "npm", args: ["start"], env },
        { label: "bundle", command: process.execPath, args: ["dist/main.js"], env },
        { label: "floor", command: process.execPath, args: ["bench/baseline-start.mjs", data], env: {} },
      ],
      root,
      runs,
    );
    const npm = restarts.npm!;
    const bundle = restarts.bundle!;
    const floor = restarts.floor!;
    const medians = { npm: median(npm), bundle: median(bundle), floor: median(floor) };
    report.results.restart = { runs: restarts, medians };
    const ms = (values: number[]) => values.map((v) => v.toFixed(0)).join(", ");
    report.rows.push({
      measure: `restart: \`npm start\` to /readyz 200, median ms of ${runs}`,
      service: `${medians.npm.toFixed(0)} (max ${Math.max(...npm).toFixed(0)})`,
      baseline: `${medians.floor.toFixed(0)} Node + chDB opened + one query + node:http (runs: ${ms(floor)})`,
      ratio: (medians.npm / medians.floor).toFixed(2),
      goal: "< 2000 ms",
      met: Math.max(...npm) < 2000 ? "yes" : "no",
    });
    report.rows.push({
      measure: "restart: `node dist/main.js` to /readyz 200, median ms",
      service: `${medians.bundle.toFixed(0)} (runs: ${ms(bundle)})`,
      baseline: `${medians.floor.toFixed(0)} the same floor`,
      ratio: (medians.bundle / medians.floor).toFixed(2),
      goal: "(context: npm's own start is the difference)",
      met: "",
    });
  },
};
