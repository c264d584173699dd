// nginx (/usr/sbin/nginx) as a process of the test, run as the current user
// from a temporary prefix: its configuration, pid file, error log and temp
// paths all there, in the foreground (`daemon off`), stopped by its pid.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, connect } from "node:net";
import { userInfo } from "node:os";
import { join } from "node:path";

export const nginxBinary = "/usr/sbin/nginx";

/** Why nginx cannot run here, or undefined when it can. */
export function nginxMissing(): string | undefined {
  return existsSync(nginxBinary) ? undefined : `${nginxBinary} is not installed (apt-get install nginx)`;
}

export interface NginxProcess {
  child: ChildProcess;
  /** What nginx wrote to its error log so far. */
  errorLog(): string;
  /** SIGQUIT (graceful), then resolves once it has exited. */
  stop(): Promise<void>;
}

/** A port free on 127.0.0.1 a moment ago: nginx needs its ports written in its configuration. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Starts nginx with `site` (server and upstream blocks, as in conf.d/) inside
 * an http block of its own, under `prefix`; resolves once each of `ports`
 * accepts connections.
 */
export async function startNginx(prefix: string, site: string, ports: number[]): Promise<NginxProcess> {
  const errorLog = join(prefix, "error.log");
  // As root the workers would switch to `nobody`, which cannot enter a temporary directory made 0700.
  const user = process.getuid?.() === 0 ? `user ${userInfo().username};\n` : "";
  writeFileSync(join(prefix, "site.conf"), site);
  writeFileSync(
    join(prefix, "nginx.conf"),
    `${user}daemon off;
worker_processes 1;
pid ${join(prefix, "nginx.pid")};
error_log ${errorLog} info;
events { worker_connections 256; }
http {
    access_log off;
    client_body_temp_path ${join(prefix, "client-body")};
    proxy_temp_path ${join(prefix, "proxy")};
    fastcgi_temp_path ${join(prefix, "fastcgi")};
    uwsgi_temp_path ${join(prefix, "uwsgi")};
    scgi_temp_path ${join(prefix, "scgi")};
    include ${join(prefix, "site.conf")};
}
`,
  );
  const child = spawn(nginxBinary, ["-p", prefix, "-c", join(prefix, "nginx.conf"), "-e", errorLog], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (output += d.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const readLog = () => (existsSync(errorLog) ? readFileSync(errorLog, "utf8") : "");
  const deadline = Date.now() + 10_000;
  for (const port of ports) {
    while (!(await accepts(port))) {
      if (child.exitCode !== null || Date.now() > deadline)
        throw new Error(`nginx did not start: ${output}${readLog().slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return {
    child,
    errorLog: readLog,
    async stop() {
      if (child.exitCode === null) child.kill("SIGQUIT");
      await exited;
    },
  };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}
