// The integration tests' global setup, once per run before any of their
// files: the build (build-once.ts) and the migrated template data directory
// (warehouse-template.ts), removed after the last file.
import { dirname } from "node:path";
import type { TestProject } from "vitest/node";
import { buildOnce } from "./build-once.js";
import { removeTemporaryDirectory } from "./temp-directory.js";
import { makeWarehouseTemplate } from "./warehouse-template.js";

export function setup(project: TestProject): () => void {
  buildOnce();
  const template = makeWarehouseTemplate();
  project.provide("warehouseTemplate", template);
  return () => removeTemporaryDirectory(dirname(template));
}
