// nginx with proxy_cache in front (proxy_cache_valid 200 10m, the upstream's
// headers honoured, the cache key the URL alone): it stores none of the
// answers, so two keys whose `project` is fixed to different projects each
// read their own rows from the same URL, and a wrong key gets 401; nor the
// listing (a scoped key's names its fixed values) or the probes and metrics.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keyDigest } from "../../../src/auth/index.js";
import type { Warehouse } from "../../../src/warehouse/index.js";
import { edgeRow, insertRows, openTestWarehouse, ts } from "../../support/embedded-warehouse.js";
import { freePort, nginxMissing, startNginx, type NginxProcess } from "../../support/nginx-process.js";
import { insertScenario, NOW } from "../../support/scenario.js";
import { makeTemporaryDirectory, removeTemporaryDirectory } from "../../support/temp-directory.js";
import { startTestServer, type TestServer } from "../../support/test-server.js";
import { writeFileSync } from "node:fs";

const keys = { rpc: "tenant-rpc-key-0123456789", other: "tenant-other-key-0123456789" };

describe.skipIf(nginxMissing() !== undefined)("behind nginx proxy_cache", () => {
  let warehouse: Warehouse;
  let server: TestServer;
  let nginx: NginxProcess;
  let prefix: string;
  let proxy: string;

  beforeAll(async () => {
    prefix = makeTemporaryDirectory("sqe-proxy-cache-");
    warehouse = await openTestWarehouse();
    await insertScenario(warehouse);
    await insertRows(warehouse, "edge_logs", [
      edgeRow({ project: "other", id: "o1", path: "/rest/v1/x", timestamp: ts(NOW - 5 * 60_000) }),
    ]);
    const keysPath = join(prefix, "keys.json");
    const entry = (project: "rpc" | "other") => ({
      id: `tenant-${project}`,
      sha256: keyDigest(keys[project]),
      fixed: { project },
    });
    writeFileSync(keysPath, JSON.stringify({ keys: [entry("rpc"), entry("other")] }));
    server = await startTestServer(warehouse, NOW, { keyFile: { path: keysPath, pollMs: 0 } });
    mkdirSync(join(prefix, "cache"));
    const port = await freePort();
    nginx = await startNginx(
      prefix,
      `proxy_cache_path ${join(prefix, "cache")} keys_zone=results:1m;
server {
    listen 127.0.0.1:${port};
    location / {
        proxy_pass ${server.url};
        proxy_cache results;
        proxy_cache_valid 200 10m;
        add_header X-Proxy-Cache $upstream_cache_status always;
    }
}
`,
      [port],
    );
    proxy = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    await nginx?.stop();
    await server?.close();
    await warehouse?.close();
    if (prefix !== undefined) removeTemporaryDirectory(prefix);
  });

  const get = (path: string, key: string) => fetch(`${proxy}${path}`, { headers: { "x-api-key": key } });

  it.each(["/api/endpoints/logs.all", "/api/endpoints/usage.api-counts?interval=hourly"])(
    "gives each key its own rows from %s, and a wrong key 401",
    async (path) => {
      const first = await get(path, keys.rpc);
      const again = await get(path, keys.rpc);
      const second = await get(path, keys.other);
      const wrong = await get(path, "not-a-key-0123456789");
      expect([first.status, again.status, second.status, wrong.status]).toEqual([200, 200, 200, 401]);
      for (const response of [first, again, second, wrong])
        expect(response.headers.get("x-proxy-cache")).not.toBe("HIT");
      const firstBody = await first.text();
      const secondBody = await second.text();
      const direct = (key: string) =>
        fetch(`${server.url}${path}`, { headers: { "x-api-key": key } }).then((r) => r.text());
      expect(firstBody).toBe(await direct(keys.rpc));
      expect(secondBody).toBe(await direct(keys.other));
      expect(secondBody).not.toBe(firstBody);
    },
  );

  it("gives each key its own listing, and a keyless caller 401", async () => {
    const first = await get("/api/endpoints", keys.rpc);
    const again = await get("/api/endpoints", keys.rpc);
    const second = await get("/api/endpoints", keys.other);
    const keyless = await fetch(`${proxy}/api/endpoints`);
    expect([first.status, again.status, second.status, keyless.status]).toEqual([200, 200, 200, 401]);
    for (const response of [first, again, second, keyless])
      expect(response.headers.get("x-proxy-cache")).not.toBe("HIT");
    expect(first.headers.get("cache-control")).toBe("private, no-cache");
    expect(first.headers.get("vary")).toBe("X-API-KEY, Authorization");
    const fixedProjects = async (response: Response) => {
      const { result } = (await response.json()) as { result: { fixed_parameters?: { project?: string } }[] };
      return new Set(result.flatMap((e) => e.fixed_parameters?.project ?? []));
    };
    expect(await fixedProjects(first)).toEqual(new Set(["rpc"]));
    expect(await fixedProjects(second)).toEqual(new Set(["other"]));
    expect(await keyless.text()).not.toContain("fixed_parameters");
  });

  it.each(["/healthz", "/readyz", "/metrics"])("stores no answer of %s", async (path) => {
    const first = await fetch(`${proxy}${path}`);
    const again = await fetch(`${proxy}${path}`);
    expect([first.status, again.status]).toEqual([200, 200]);
    expect(first.headers.get("cache-control")).toBe("no-store");
    expect(again.headers.get("x-proxy-cache")).not.toBe("HIT");
  });

  it("has /openapi.json revalidated on every use, a matching tag answered 304", async () => {
    const first = await fetch(`${server.url}/openapi.json`);
    const etag = first.headers.get("etag");
    expect([first.status, first.headers.get("cache-control")]).toEqual([200, "no-cache"]);
    expect(etag).toMatch(/^"[\w-]{22}"$/);
    const again = await fetch(`${server.url}/openapi.json`, { headers: { "if-none-match": `W/${etag}` } });
    expect([again.status, again.headers.get("etag"), await again.text()]).toEqual([304, etag, ""]);
  });
});
