// The container image, checked without a container engine (none runs here):
// the Dockerfile's stages are played in temporary directories, each COPY and
// RUN as written (the build stage's `npm ci` excepted: the installed
// node_modules stands in for it), and the last stage's command then starts
// the service from that clean copy, with production dependencies only
// (OpenTelemetry among them, loaded for traces), answers /readyz, and passes
// the image's own HEALTHCHECK command; and compose.yaml runs what the image
// holds.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, statSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copiesOf, envOf, execForm, only, readDockerfile, type Stage } from "../../support/dockerfile.js";
import { startOtlpReceiver } from "../../support/otlp-receiver.js";
import { startServiceProcess, type ServiceProcess } from "../../support/service-process.js";
import { makeTemporaryDirectory, removeTemporaryDirectory } from "../../support/temp-directory.js";

const root = join(import.meta.dirname, "../../..");
const stages = readDockerfile(join(root, "Dockerfile"));
const image = stages.at(-1)!;
const workdir = "/app";
let scratch: string;

/** The temporary directory standing for `stage`'s WORKDIR. */
const directoryOf = (stage: Stage) => join(scratch, stage.name);

/** Whether .dockerignore keeps `path` (relative to the project) out of the build context. */
function ignored(path: string): boolean {
  const patterns = readFileSync(join(root, ".dockerignore"), "utf8")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"));
  const parts = path.split("/");
  return patterns.some((pattern) => {
    const regex = new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]*")}$`);
    return parts.some((_, i) => regex.test(parts.slice(0, i + 1).join("/")));
  });
}

/** Plays one stage: its COPY instructions from the context or an earlier stage, then (outside the image) its RUN lines. */
function play(stage: Stage) {
  const directory = directoryOf(stage);
  mkdirSync(directory, { recursive: true });
  expect(only(stage, "WORKDIR").text).toBe(workdir);
  for (const instruction of stage.instructions) {
    if (instruction.keyword === "COPY") {
      const copy = copiesOf({ ...stage, instructions: [instruction] })[0]!;
      for (const source of copy.sources) {
        const from =
          copy.from === undefined
            ? join(root, source)
            : join(directoryOf(stages.find((s) => s.name === copy.from)!), source.slice(`${workdir}/`.length));
        const target = copy.destination.endsWith("/")
          ? join(directory, copy.destination, source.split("/").at(-1)!)
          : join(directory, copy.destination);
        cpSync(from, target, { recursive: true });
      }
    } else if (instruction.keyword === "RUN") {
      if (stage === image) {
        // The image's own RUN lines make its data directory, an absolute path this test replaces by a temporary one.
        expect(instruction.text).toMatch(/^mkdir \/data && chown node:node \/data$/);
      } else if (/^npm ci(?! .*--omit=dev)/.test(instruction.text)) {
        // Every dependency, dev ones included, from the same lock: the project's node_modules.
        symlinkSync(join(root, "node_modules"), join(directory, "node_modules"));
      } else {
        const run = spawnSync("sh", ["-c", instruction.text], {
          cwd: directory,
          env: { ...process.env, ...envOf(stage) },
          encoding: "utf8",
          timeout: 170_000,
        });
        expect({ command: instruction.text, status: run.status, stderr: run.status === 0 ? "" : run.stderr }).toEqual({
          command: instruction.text,
          status: 0,
          stderr: "",
        });
      }
    }
  }
}

beforeAll(() => {
  scratch = makeTemporaryDirectory("sqe-image-");
}, 10_000);
afterAll(() => removeTemporaryDirectory(scratch));

describe("the container image", () => {
  it("is built from a slim Node 20 base in every stage and runs `node dist/main.js` as the unprivileged node user", () => {
    expect(stages.map((s) => s.base)).toEqual(stages.map(() => "node:20-bookworm-slim"));
    expect(only(image, "USER").text).toBe("node");
    expect(execForm(only(image, "CMD").text)).toEqual(["node", "dist/main.js"]);
    expect(envOf(image)).toMatchObject({ HOST: "0.0.0.0", PORT: "8080", NODE_ENV: "production" });
  });

  it("copies from the build context only files that exist and .dockerignore lets through", () => {
    const fromContext = stages
      .flatMap((s) => copiesOf(s).filter((c) => c.from === undefined))
      .flatMap((c) => c.sources);
    expect(fromContext.length).toBeGreaterThan(0);
    for (const source of fromContext) {
      expect({ source, exists: existsSync(join(root, source)), ignored: ignored(source) }).toEqual({
        source,
        exists: true,
        ignored: false,
      });
    }
    // What is built inside the image is not sent in: src/gen/, dist/, node_modules/.
    expect(["src/gen/logs/v1/logs_pb.ts", "dist/main.js", "node_modules/chdb"].map(ignored)).toEqual([
      true,
      true,
      true,
    ]);
  });

  describe("played without a container engine", () => {
    let service: ServiceProcess | undefined;
    const health = (port: string) => {
      const [command = "", ...args] = execForm(only(image, "HEALTHCHECK").text);
      return spawnSync(command === "node" ? process.execPath : command, args, {
        env: { ...process.env, PORT: port },
        timeout: 10_000,
      }).status;
    };
    // Stopped only if it was started: a command that could not be spawned never exits.
    afterAll(async () => (service?.child.pid === undefined ? undefined : service.stop()));

    it("builds, then holds what the image copies and production dependencies only", () => {
      for (const stage of stages) play(stage);
      const app = directoryOf(image);
      expect(
        ["dist/main.js", "dist/cli/migrate.js", "dist/web", "sql/migrations", "package.json"].filter(
          (p) => !existsSync(join(app, p)),
        ),
      ).toEqual([]);
      expect(statSync(join(app, "node_modules")).isSymbolicLink()).toBe(false);
      // The lock marks what only development needs (devDependencies and what only they need): none of it is there.
      const lock = JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8")) as {
        packages: Record<string, { dev?: boolean }>;
      };
      const devOnly = Object.keys(lock.packages).filter((path) => lock.packages[path]!.dev === true);
      expect(devOnly).toContain("node_modules/esbuild");
      expect(devOnly.filter((path) => existsSync(join(app, path)))).toEqual([]);
      const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
        dependencies: Record<string, string>;
      };
      const present = (name: string) => existsSync(join(app, "node_modules", name, "package.json"));
      expect(Object.keys(manifest.dependencies).filter((name) => !present(name))).toEqual([]);
    }, 180_000);

    it("is what compose.yaml runs: its commands are in the image, its mounts exist, and the proxy it trusts is nginx", () => {
      const compose = readFileSync(join(root, "compose.yaml"), "utf8");
      const commands = [...compose.matchAll(/^\s+command: (\[.*\])$/gm)].map((m) => JSON.parse(m[1]!) as string[]);
      expect(commands).toEqual([["node", "dist/cli/migrate.js"]]);
      for (const [, script] of commands) expect(existsSync(join(directoryOf(image), script!))).toBe(true);
      const mounts = [...compose.matchAll(/^\s+- \.\/([^:]+):/gm)].map((m) => m[1]!);
      expect(mounts).toEqual(["deploy/nginx.conf"]);
      expect(mounts.filter((path) => !existsSync(join(root, path)))).toEqual([]);
      const trusted = /TRUSTED_PROXIES: (\S+)/.exec(compose)?.[1];
      const proxyAddress = /ipv4_address: ([\d.]+)/.exec(compose)?.[1];
      expect(trusted).toBeDefined();
      expect(trusted).toBe(proxyAddress);
    });

    it("starts the service with its command, ready and healthy, and answers a saved query", async () => {
      const app = directoryOf(image);
      const [node, ...args] = execForm(only(image, "CMD").text);
      expect(node).toBe("node");
      // The image's environment, but on loopback, a free port and a temporary data directory, without demo data.
      // Traces on: OpenTelemetry, outside the bundles, must load from the image's production dependencies.
      const receiver = await startOtlpReceiver();
      const env = {
        ...envOf(image),
        HOST: "127.0.0.1",
        PORT: "0",
        CHDB_PATH: join(scratch, "data"),
        DEMO_DATA: "0",
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_BSP_SCHEDULE_DELAY: "50",
      };
      service = startServiceProcess(env, { args, cwd: app });
      const url = await service.listening();
      const port = new URL(url).port;
      expect((await fetch(`${url}/readyz`)).status).toBe(200);
      expect(health(port)).toBe(0);
      // The explorer page, built into dist/web/ by the build stage.
      const page = await fetch(`${url}/`);
      expect(page.status).toBe(200);
      expect(page.headers.get("content-type")).toMatch(/^text\/html/);
      const key = /API key: (\S+)/.exec(service.output())![1]!;
      const answer = await fetch(`${url}/api/endpoints/logs.all?project=abcdefghijklmnopqrst`, {
        headers: { "x-api-key": key },
      });
      expect({ status: answer.status, body: await answer.json() }).toEqual({
        status: 200,
        body: { result: [], truncated: false, rows_before_limit_at_least: 0 },
      });
      await receiver.waitFor((spans) => spans.some((span) => span.name === "logs.all"));
      await receiver.close();
      await service.stop();
      expect(await service.exited).toBe(0);
      expect(health(port)).not.toBe(0);
    }, 120_000);
  });
});
