import type { IncomingMessage } from "node:http";
import proxyaddr from "proxy-addr";

/**
 * The header in which the web server (scripts/web.ts) tells the app who the client is. Whatever a
 * client sends under this name is overwritten on every request, so it is the one place where the
 * client's address can be read: better-auth's rate limit, the sign-in guard and the audit log use it.
 */
export const CLIENT_ADDRESS_HEADER = "x-jobscope-client-address";

/** Forwarding headers honoured only from a trusted proxy; removed from everyone else's requests. */
const FORWARDING = ["x-forwarded-for", "x-forwarded-host", "x-forwarded-proto", "x-forwarded-port", "forwarded", "x-real-ip"] as const;

export type TrustedProxies = (address: string, hop: number) => boolean;

/**
 * JOBSCOPE_TRUSTED_PROXIES: a comma-separated list of addresses and CIDR ranges (or proxy-addr's
 * names `loopback`, `linklocal`, `uniquelocal`) whose X-Forwarded-* headers are believed. Unset:
 * none — the console is reached directly and the socket's address is the client.
 */
export function trustedProxies(spec = process.env.JOBSCOPE_TRUSTED_PROXIES ?? ""): TrustedProxies {
  const list = spec
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  return proxyaddr.compile(list);
}

/**
 * Make a request's forwarding headers trustworthy before the app sees it: from a trusted proxy they
 * stay (the client is the last address in X-Forwarded-For that is not a trusted proxy); from anyone
 * else they are removed, so Next.js's own origin check compares the Origin with the real Host. Either
 * way the client's address is written to CLIENT_ADDRESS_HEADER.
 */
export function sanitizeForwarding(req: IncomingMessage, trust: TrustedProxies): string {
  const peer = req.socket.remoteAddress ?? "";
  if (!trust(peer, 0)) for (const h of FORWARDING) delete req.headers[h];
  const client = proxyaddr(req, trust);
  req.headers[CLIENT_ADDRESS_HEADER] = client;
  return client;
}

/** The client's address as the web server recorded it ("unknown" outside it: tests, scripts). */
export function clientAddressOf(headers: Headers | null | undefined): string {
  const v = headers?.get(CLIENT_ADDRESS_HEADER)?.trim();
  return v && v.length <= 64 ? v : "unknown";
}
