// Test runner settings, in two projects sharing two workers. libchdb binds one
// data directory per process, so every integration test file runs in a forked
// process of its own, with its own directory (test/support), after one global
// setup (test/support/global-setup.ts: `npm run build`, and a migrated data
// directory each test warehouse starts as a copy of). The unit tests never
// open the engine: they share their workers, one process each for many files,
// and so load the modules they share once.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    pool: "forks",
    fileParallelism: true,
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    projects: [
      {
        extends: true,
        test: { name: "unit", include: ["test/unit/**/*.test.ts"], isolate: false },
      },
      {
        extends: true,
        test: {
          name: "integration",
          include: ["test/integration/**/*.test.ts"],
          isolate: true,
          globalSetup: ["test/support/global-setup.ts"],
        },
      },
    ],
  },
});
