// A network namespace whose clients hold several addresses of one IPv6 /64,
// joined to this one by a veth pair: the server listens on this side's
// address, and commands run inside with `ip netns exec`. Needs root and `ip`;
// where the namespace cannot be made, says why in one line instead.
import { execFile, execFileSync } from "node:child_process";

export interface PrefixNamespace {
  /** The address a server in this namespace listens on, in the clients' /64. */
  serverAddress: string;
  /** The clients' addresses: three of one /64. */
  clientAddresses: string[];
  /** Runs `command` inside the namespace; resolves with its stdout, rejects with its stderr. */
  run(command: string[]): Promise<string>;
  /** Removes the namespace and the veth pair. */
  close(): void;
}

/** A namespace with three client addresses of `fd47:<n>::/64`, or the one-line reason it cannot be made. */
export function openPrefixNamespace(): PrefixNamespace | string {
  if (process.platform !== "linux") return "network namespaces need Linux";
  if (process.getuid?.() !== 0) return "making a network namespace needs root";
  const id = process.pid % 0xffff;
  const name = `sqe-v6-${process.pid}`;
  const [outside, inside] = [`s6h${process.pid}`, `s6n${process.pid}`];
  const prefix = `fd47:${id.toString(16)}:0:0`;
  const serverAddress = `${prefix}::1`;
  const clientAddresses = [`${prefix}::2`, `${prefix}::3`, `${prefix}::4`];
  const ip = (...args: string[]) => execFileSync("ip", args, { stdio: ["ignore", "ignore", "pipe"] });
  const close = () => {
    // Deleting the namespace deletes its end of the pair, and with it this one.
    try {
      ip("netns", "del", name);
    } catch {}
  };
  try {
    ip("netns", "add", name);
    ip("link", "add", outside, "type", "veth", "peer", "name", inside, "netns", name);
    // nodad: the addresses are usable at once, without duplicate address detection's wait.
    ip("addr", "add", `${serverAddress}/64`, "dev", outside, "nodad");
    ip("link", "set", outside, "up");
    for (const address of clientAddresses) ip("-n", name, "addr", "add", `${address}/64`, "dev", inside, "nodad");
    ip("-n", name, "link", "set", inside, "up");
    ip("-n", name, "link", "set", "lo", "up");
  } catch (error) {
    close();
    const stderr = String((error as { stderr?: Buffer }).stderr ?? (error as Error).message).trim();
    return `cannot make a network namespace with ip: ${stderr.split("\n")[0]}`;
  }
  return {
    serverAddress,
    clientAddresses,
    run: (command) =>
      new Promise((resolve, reject) => {
        execFile("ip", ["netns", "exec", name, ...command], (error, stdout, stderr) =>
          error === null ? resolve(stdout) : reject(new Error(`${error.message}\n${stderr}`)),
        );
      }),
    close,
  };
}
