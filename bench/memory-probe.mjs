// Loaded into a service the bench starts with `--expose-gc --import`: on
// SIGUSR2 it runs a full GC and writes process.memoryUsage() as JSON to the
// file BENCH_MEMORY_FILE names. The service itself has no way to force a GC.
import { writeFileSync } from "node:fs";

const file = process.env.BENCH_MEMORY_FILE;
if (file !== undefined && typeof globalThis.gc === "function") {
  process.on("SIGUSR2", () => {
    // Twice: the first may leave what weak references and finalizers free.
    globalThis.gc();
    globalThis.gc();
    writeFileSync(file, JSON.stringify(process.memoryUsage()));
  });
}
