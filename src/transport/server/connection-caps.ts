// The bounds on open connections: all of them together (the TCP server's own
// maxConnections) and those of one client address (IPv6 by its /64,
// network/address-key.ts), which are refused at once
// while the open ones keep working; refusals are summed up in one log line a
// second at most.
import type { Server as NetServer, Socket } from "node:net";
import { addressKey } from "../../network/index.js";
import type { Logger } from "../../observability/index.js";
import type { TrustedProxies } from "../node-http/client-address.js";

export interface ConnectionCapsOptions {
  /** Open connections, all addresses together. */
  maxConnections: number;
  /** Open connections from one client address (IPv6 by its /64). */
  maxConnectionsPerAddress: number;
  /** Proxies that carry many clients' connections: only `maxConnections` bounds theirs. */
  trustedProxies: TrustedProxies | undefined;
  /** Where refused connections are summed up. */
  logger: Logger;
}

/**
 * Bounds the connections `tcp` accepts: `admit` counts each one against its
 * address, destroying it (false) when the address holds its bound; `open`
 * holds those admitted and still open.
 */
export function capConnections(tcp: NetServer, options: ConnectionCapsOptions) {
  const { maxConnectionsPerAddress, trustedProxies, logger } = options;
  const open = new Set<Socket>();
  const perAddress = new Map<string, number>();
  let refused = 0;
  const countRefused = (reason: string) => {
    if (refused++ === 0) {
      setTimeout(() => {
        logger.warn("connections refused", {
          refused,
          reason,
          maxConnections: tcp.maxConnections,
          maxConnectionsPerAddress,
        });
        refused = 0;
      }, 1000).unref();
    }
  };
  tcp.maxConnections = options.maxConnections;
  tcp.on("drop", () => countRefused("the open-connection bound is reached"));
  return {
    open: open as ReadonlySet<Socket>,
    admit(socket: Socket): boolean {
      const peer = socket.remoteAddress ?? "";
      const address = addressKey(peer);
      const count = perAddress.get(address) ?? 0;
      if (count >= maxConnectionsPerAddress && trustedProxies?.has(peer) !== true) {
        countRefused("one address holds its bound of open connections");
        socket.destroy();
        return false;
      }
      perAddress.set(address, count + 1);
      open.add(socket);
      socket.once("close", () => {
        open.delete(socket);
        const left = perAddress.get(address)! - 1;
        if (left > 0) perAddress.set(address, left);
        else perAddress.delete(address);
      });
      return true;
    },
  };
}
