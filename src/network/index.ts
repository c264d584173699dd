// Client addresses: the key every per-address bound counts a client under.
export { addressKey } from "./address-key.js";
