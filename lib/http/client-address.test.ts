import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { CLIENT_ADDRESS_HEADER, clientAddressOf, sanitizeForwarding, trustedProxies } from "./client-address";
import { isCrossOriginPagePost } from "./origin";

/** A request as Node's HTTP server hands it over: a socket peer and headers. */
function request(peer: string, headers: Record<string, string>, method = "GET", url = "/"): IncomingMessage {
  return { method, url, headers: { ...headers }, socket: { remoteAddress: peer }, connection: { remoteAddress: peer } } as unknown as IncomingMessage;
}

describe("forwarding headers are believed only from configured proxies", () => {
  it("with no proxy configured, the socket is the client and forwarding headers are removed", () => {
    const req = request("203.0.113.7", {
      "x-forwarded-for": "10.1.1.1",
      "x-forwarded-host": "evil.example",
      forwarded: "for=1.2.3.4",
      host: "console.example",
    });
    expect(sanitizeForwarding(req, trustedProxies(""))).toBe("203.0.113.7");
    expect(req.headers["x-forwarded-for"]).toBeUndefined();
    expect(req.headers["x-forwarded-host"]).toBeUndefined();
    expect(req.headers.forwarded).toBeUndefined();
    expect(req.headers[CLIENT_ADDRESS_HEADER]).toBe("203.0.113.7");
  });

  it("a client cannot set the client-address header itself", () => {
    const req = request("203.0.113.7", { [CLIENT_ADDRESS_HEADER]: "127.0.0.1" });
    sanitizeForwarding(req, trustedProxies(""));
    expect(clientAddressOf(new Headers(req.headers as Record<string, string>))).toBe("203.0.113.7");
  });

  it("behind a configured proxy, the client is the last address it did not add itself", () => {
    const trust = trustedProxies("10.0.0.0/8, 127.0.0.1");
    const req = request("10.0.0.2", { "x-forwarded-for": "198.51.100.9, 203.0.113.5, 10.0.0.9", "x-forwarded-host": "console.example" });
    // 198.51.100.9 was sent by the client (spoofable); 203.0.113.5 is what the first trusted proxy saw.
    expect(sanitizeForwarding(req, trust)).toBe("203.0.113.5");
    expect(req.headers["x-forwarded-host"]).toBe("console.example");
  });
});

describe("cross-origin POSTs to pages (server actions)", () => {
  const post = (headers: Record<string, string>, url = "/jobs/1") => request("203.0.113.7", headers, "POST", url);
  it("refuses another Origin, a 'null' Origin, and a forged X-Forwarded-Host once it was removed", () => {
    expect(isCrossOriginPagePost(post({ host: "console.example", origin: "https://evil.example" }))).toBe(true);
    expect(isCrossOriginPagePost(post({ host: "console.example", origin: "null" }))).toBe(true);
    const forged = post({ host: "console.example", origin: "https://evil.example", "x-forwarded-host": "evil.example" });
    expect(isCrossOriginPagePost(forged)).toBe(false); // what Next.js compared: the forged host matches
    sanitizeForwarding(forged, trustedProxies(""));
    expect(isCrossOriginPagePost(forged)).toBe(true);
  });
  it("lets same-origin POSTs, POSTs without an Origin, GETs and /api through", () => {
    expect(isCrossOriginPagePost(post({ host: "console.example", origin: "https://console.example" }))).toBe(false);
    expect(isCrossOriginPagePost(post({ host: "console.example" }))).toBe(false);
    expect(isCrossOriginPagePost(request("1.1.1.1", { host: "a", origin: "https://b" }, "GET"))).toBe(false);
    expect(isCrossOriginPagePost(post({ host: "console.example", origin: "https://evil.example" }, "/api/v1/jobs"))).toBe(false);
  });
});
