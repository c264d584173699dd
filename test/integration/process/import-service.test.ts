// `npm run import` while the service runs on the same embedded data
// directory: the file goes to the service's import route (HOST and PORT of
// the configuration, or --url), all or nothing, and the service's GET shows
// the rows at once; a bad line is named by number and nothing is inserted.
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleOf } from "../../support/built-commands.js";
import { type ServiceProcess, startServiceProcess } from "../../support/service-process.js";
import { makeTemporaryDirectory, removeTemporaryDirectory } from "../../support/temp-directory.js";

const root = join(import.meta.dirname, "../../..");
const key = "import-service-key-0123456789";
const project = "abcdefghijklmnopqrst";

function edgeLine(n: number): string {
  const path = "/rest/v1/todos";
  return JSON.stringify({
    id: `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`,
    timestamp: new Date(Date.now() - n * 1000).toISOString(),
    event_message: `GET | 200 | ${path}`,
    project,
    metadata: [{ request: [{ method: "GET", path, url: `https://${project}.supabase.co${path}` }] }],
  });
}

/** A port nothing listens on now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The import command from its bundle, as `npm run import` runs it; resolves with its exit code and output. */
function runImport(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [bundleOf("cli/import"), ...args], {
    cwd: root,
    env: { ...process.env, API_KEYS: "", API_KEYS_FILE: "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) =>
    child.once("exit", (status) => resolve({ status, stdout, stderr })),
  );
}

let dir: string;
let service: ServiceProcess | undefined;
let url: string;
let env: Record<string, string>;

beforeAll(async () => {
  dir = makeTemporaryDirectory("sqe-import-service-");
  const port = String(await freePort());
  env = { CHDB_PATH: join(dir, "data"), PORT: port, API_KEYS: key, DEMO_DATA: "0" };
  service = startServiceProcess(env);
  url = await service.listening();
}, 90_000);
afterAll(async () => {
  await service?.stop();
  removeTemporaryDirectory(dir);
});

async function loggedIds(): Promise<string[]> {
  const response = await fetch(`${url}/api/endpoints/logs.all?project=${project}`, { headers: { "x-api-key": key } });
  const body = (await response.json()) as { result: { id: string }[] };
  return body.result.map((row) => row.id.slice(-2)).sort();
}

describe("npm run import while the service runs", () => {
  it("sends the file to the service holding the data directory, which shows the rows at once", async () => {
    const file = join(dir, "good.ndjson");
    writeFileSync(file, `${[1, 2, 3].map(edgeLine).join("\n")}\n`);
    const run = await runImport(["--table", "edge_logs", file], env);
    expect(run.stderr).toContain(`sending ${file} to the service at http://127.0.0.1:${env.PORT}`);
    expect(run.stdout).toBe("imported 3 rows into edge_logs\n");
    expect(run.status).toBe(0);
    expect(await loggedIds()).toEqual(["01", "02", "03"]);
  }, 60_000);

  it("sends it to the service --url names, and a bad line there inserts nothing", async () => {
    const good = join(dir, "url.ndjson");
    writeFileSync(good, `${edgeLine(4)}\n`);
    const run = await runImport(["--table", "edge_logs", "--url", url, good], { API_KEYS: key });
    expect(run.stdout).toBe("imported 1 rows into edge_logs\n");
    expect(run.status).toBe(0);

    const mixed = join(dir, "mixed.ndjson");
    writeFileSync(mixed, `${edgeLine(5)}\nnot json\n`);
    const refused = await runImport(["--table", "edge_logs", "--url", url, mixed], { API_KEYS: key });
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain("line 2: not valid JSON");
    expect(await loggedIds()).toEqual(["01", "02", "03", "04"]);
  }, 60_000);
});
