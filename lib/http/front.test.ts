import { createServer, request, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAnonymousAuditor } from "../audit/anonymous";
import { trustedProxies } from "./client-address";
import type { NextConfig } from "next";
import { PAGE_BODY_LIMIT } from "./body-limit";
import { signInBusy, type PasswordWork } from "../auth/password-work";
import { frontHandler } from "./front";

// A real HTTP server with the front before a stand-in for Next.js that reads every body it is given.
const reached: { url: string; bytes: number }[] = [];
// Password hashing with no room (once `hashingFull` is set): every stranger's sign-in is "busy".
let hashingFull = false;
const work = { full: () => hashingFull } as unknown as PasswordWork;
let server: Server;
let port = 0;
const audit = createAnonymousAuditor(
  () => {
    throw new Error("no database in this test");
  },
  { log: () => {} },
);

beforeAll(async () => {
  server = createServer(
    frontHandler({
      trust: trustedProxies(""),
      audit: () => audit,
      busy: (req) => signInBusy(req, work),
      handle: async (req, res) => {
        let bytes = 0;
        for await (const chunk of req as AsyncIterable<Buffer>) bytes += chunk.length;
        reached.push({ url: req.url ?? "", bytes });
        res.end(String(bytes));
      },
    }),
  );
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

type Answer = { status: number | string; body: string; sentBytes: number };

/**
 * POST `total` bytes in 64 kB chunks (with a Content-Length unless `chunked`), sending each chunk
 * only once the last was taken, and stop sending as soon as an answer arrives.
 */
function post(path: string, total: number, opts: { chunked?: boolean; declare?: number } = {}): Promise<Answer> {
  return new Promise((resolve) => {
    let sentBytes = 0;
    let answered = false;
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (!opts.chunked) headers["content-length"] = String(opts.declare ?? total);
    const req = request({ host: "127.0.0.1", port, path, method: "POST", headers }, (res: IncomingMessage) => {
      answered = true;
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body, sentBytes }));
    });
    req.on("error", (e: NodeJS.ErrnoException) => !answered && resolve({ status: e.code ?? "error", body: "", sentBytes }));
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    const pump = () => {
      while (!answered && sentBytes < total) {
        const piece = chunk.subarray(0, Math.min(chunk.length, total - sentBytes));
        sentBytes += piece.length;
        if (!req.write(piece)) return void req.once("drain", pump);
      }
      if (!answered) req.end();
    };
    req.flushHeaders();
    setImmediate(pump);
  });
}

describe("every request body has a size limit that applies before it is read", () => {
  it("a declared Content-Length over the route's limit is answered 413 at once, without the body being read", async () => {
    const before = reached.length;
    // Only the headers are sent: the answer must come without a byte of the 400 MB body.
    const r = await post("/api/auth/sign-in/email", 0, { declare: 400 * 1024 * 1024 });
    expect(r.status).toBe(413);
    expect(r.body).toMatch(/too large/i);
    expect(reached.length).toBe(before);
  });

  it("a chunked body is cut off once it passes the limit: 413, and the app never sees it", async () => {
    const before = reached.length;
    const r = await post("/api/auth/sign-in/email", 16 * 1024 * 1024, { chunked: true });
    expect([413, "ECONNRESET", "EPIPE"]).toContain(r.status);
    expect(r.sentBytes).toBeLessThan(16 * 1024 * 1024);
    expect(reached.length).toBe(before);
  });

  it("bodies within the limit reach the app whole, chunked or not; pages (server actions) take up to 1 MB, the tenant API 64 kB", async () => {
    expect(await post("/api/auth/sign-in/email", 2_000)).toMatchObject({ status: 200, body: "2000" });
    expect(await post("/api/auth/sign-in/email", 2_000, { chunked: true })).toMatchObject({ status: 200, body: "2000" });
    expect(await post("/jobs/1", 900 * 1024, { chunked: true })).toMatchObject({ status: 200, body: String(900 * 1024) });
    expect((await post("/jobs/1", 0, { declare: 2 * 1024 * 1024 })).status).toBe(413);
    expect(await post("/api/v1/jobs", 60 * 1024)).toMatchObject({ status: 200, body: String(60 * 1024) });
    expect((await post("/api/v1/jobs", 0, { declare: 70 * 1024 })).status).toBe(413);
  });

  it("pages take what Next.js takes for a server action, the same number in next.config.js", async () => {
    // A JavaScript file (no declarations): imported by a path TypeScript does not resolve, then typed.
    const file = "../../next.config.js";
    const { default: nextConfig } = (await import(file)) as { default: NextConfig };
    expect(nextConfig.experimental?.serverActions?.bodySizeLimit).toBe(PAGE_BODY_LIMIT);
  });

  it("a URL with a NUL character is refused with 400 before any route reads it", async () => {
    const before = reached.length;
    for (const path of ["/jobs?type=a%00b", "/api/jobs?queue=%00", "/api/auth/get-session?x=%00"]) {
      const r = await new Promise<number>((resolve) =>
        request({ host: "127.0.0.1", port, path }, (res) => (res.resume(), resolve(res.statusCode ?? 0))).end(),
      );
      expect(r, path).toBe(400);
    }
    expect(reached.length).toBe(before);
  });

  it("while password hashing has no room, a stranger's sign-in is answered 503 here, before the app; a known device's goes on", async () => {
    hashingFull = true;
    const before = reached.length;
    const send = (path: string, headers: Record<string, string> = {}) =>
      new Promise<{ status: number; retryAfter: string | undefined }>((resolve) =>
        request({ host: "127.0.0.1", port, path, method: "POST", headers: { "content-type": "application/json", ...headers } }, (res) => {
          res.resume();
          resolve({ status: res.statusCode ?? 0, retryAfter: res.headers["retry-after"] });
        }).end("{}"),
      );
    expect(await send("/api/auth/sign-in/email")).toEqual({ status: 503, retryAfter: "2" });
    expect(reached.length).toBe(before);
    // The sign-in form's server action goes on: its answer must be one Next.js's client can show (the guard refuses it).
    expect((await send("/sign-in", { "next-action": "abc" })).status).toBe(200);
    expect((await send("/api/auth/sign-in/email", { cookie: "better-auth.device=x.1.y.sig" })).status).toBe(200);
    expect((await send("/api/auth/sign-out")).status).toBe(200);
    hashingFull = false;
    expect((await send("/api/auth/sign-in/email")).status).toBe(200);
  });
});
