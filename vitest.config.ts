// Test runner settings: libchdb binds one data directory per process, so every
// test file runs in its own forked process with its own directory (test/support).
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    pool: "forks",
    isolate: true,
    fileParallelism: true,
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
