import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from "node:dns";
import { isIP } from "node:net";
import { networkInterfaces } from "node:os";
import ipaddr from "ipaddr.js";

/*
 * Where a tenant's webhook may be delivered. The decision is taken per resolved address at connect
 * time, in the `lookup` the socket resolves its host with (`checkedLookup`): the address checked is
 * the one connected to, so a DNS answer that changes between a check and the connection (rebinding)
 * cannot slip through, and neither can a name that resolves inside. An IP written in the URL is
 * checked as it is, before connecting (no lookup happens for it). Refused:
 * every address that is not global unicast (ipaddr.js's ranges: loopback, private, link-local,
 * carrier-grade NAT, benchmarking 198.18/15, documentation, multicast, IPv4-mapped and NAT64 forms of
 * those…), the deprecated IPv4-compatible IPv6 block (::/96, e.g. [::127.0.0.1]), and the networks
 * of this host's own interfaces (a service on its public address). An operator names internal
 * receivers that tenants may reach in JOBSCOPE_WEBHOOK_ALLOWED_NETWORKS (addresses or CIDRs).
 * The same rules are asked of an address written in the URL when a rule is created.
 */

export type DestinationPolicy = {
  /** Addresses and CIDRs allowed although internal (the operator's list). */
  allow: string[];
  /** Addresses and CIDRs refused although global (IPv4-compatible IPv6, the host's own networks). */
  deny: string[];
};

type Interfaces = ReturnType<typeof networkInterfaces>;

const list = (spec: string | undefined) =>
  (spec ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);

/** The policy of this deployment: the operator's allow-list and this host's networks. */
export function destinationPolicy(
  env: Record<string, string | undefined> = process.env,
  interfaces: Interfaces = networkInterfaces(),
): DestinationPolicy {
  const own = Object.values(interfaces)
    .flat()
    .flatMap((i) => (i?.cidr ? [i.cidr] : []));
  return { allow: list(env.JOBSCOPE_WEBHOOK_ALLOWED_NETWORKS), deny: ["::/96", ...own] };
}

const matches = (ip: ipaddr.IPv4 | ipaddr.IPv6, cidrs: readonly string[]) =>
  cidrs.some((c) => {
    try {
      const range = c.includes("/") ? ipaddr.parseCIDR(c) : ([ipaddr.parse(c), ip.kind() === "ipv4" ? 32 : 128] as const);
      return ip.kind() === range[0].kind() && ip.match(range as [ipaddr.IPv4 | ipaddr.IPv6, number]);
    } catch {
      return false;
    }
  });

/** Why a tenant's webhook may not be delivered to `address` (an IP), or null if it may. As request-filtering-agent decides it. */
export function refusedAddress(address: string, policy: DestinationPolicy): string | null {
  if (isIP(address) === 0) return "not an IP address";
  const ip = ipaddr.parse(address);
  if (matches(ip, policy.allow)) return null;
  const range = ip.range();
  if (range !== "unicast") return `an internal address (${range})`;
  if (matches(ip, policy.deny)) return "an address of this deployment's own networks";
  return null;
}

/**
 * Why a tenant's webhook URL's host is refused when the rule is created, or null: names of this
 * machine (localhost, with or without its trailing dot, .localhost, .local, .internal) and IP
 * literals `refusedAddress` refuses. Other names are decided when they are resolved, at delivery.
 */
export function refusedHost(hostname: string, policy: DestinationPolicy): string | null {
  const h = hostname
    .replace(/^\[|\]$/g, "")
    .toLowerCase()
    .replace(/\.+$/, "");
  if (h === "localhost" || h.endsWith(".localhost") || h.endsWith(".internal") || h.endsWith(".local"))
    return "a name of this machine or its network";
  if (isIP(h) !== 0) return refusedAddress(h, policy);
  return null;
}

/** A refused destination: the delivery fails for good (retrying cannot change where a name points now). */
export class DestinationError extends Error {
  override name = "DestinationError";
  readonly code = "EDESTINATION";
}

type Resolve = (
  hostname: string,
  options: LookupOptions & { all: true },
  callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;
type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for http.request that resolves `hostname` (`resolve`, default dns.lookup) and answers
 * only if every address is one `refusedAddress` allows; the socket then connects to what it answered.
 */
export function checkedLookup(policy: DestinationPolicy, resolve: Resolve = dnsLookup as unknown as Resolve) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      for (const a of addresses) {
        const why = refusedAddress(a.address, policy);
        if (why) return callback(new DestinationError(`${hostname} resolves to ${why}: a tenant's webhook is not sent there`), []);
      }
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: "ENOTFOUND" }), []);
      if (options.all) return callback(null, addresses);
      callback(null, first.address, first.family);
    });
  };
}
