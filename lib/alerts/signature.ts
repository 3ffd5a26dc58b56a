import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Webhook signatures, as Stripe's: the header `Jobscope-Signature: t=<unix seconds>,v1=<hex>` where
 * v1 = HMAC-SHA256(secret, "<t>.<raw body>"). A receiver recomputes it over the raw body, compares
 * in constant time, and refuses a timestamp older than a few minutes (a replayed request).
 */
export const SIGNATURE_HEADER = "jobscope-signature";

export function sign(secret: string, body: string, at: Date = new Date()): string {
  const t = Math.floor(at.getTime() / 1000);
  const v1 = createHmac("sha256", secret).update(`${t}.${body}`).digest("hex");
  return `t=${t},v1=${v1}`;
}

export type Verified = { ok: true; at: Date } | { ok: false; reason: string };

/** Check a received signature header against the raw body (what a receiver does; the tests use it). */
export function verify(secret: string, header: string | null | undefined, body: string, opts: { toleranceSec?: number; now?: Date } = {}): Verified {
  const parts = new Map((header ?? "").split(",").map((p) => p.trim().split("=", 2) as [string, string]));
  const t = Number(parts.get("t"));
  const v1 = parts.get("v1") ?? "";
  if (!Number.isInteger(t) || !/^[0-9a-f]{64}$/.test(v1)) return { ok: false, reason: "malformed signature header" };
  const age = (opts.now ?? new Date()).getTime() / 1000 - t;
  if (Math.abs(age) > (opts.toleranceSec ?? 300)) return { ok: false, reason: "timestamp outside the tolerance" };
  const expected = createHmac("sha256", secret).update(`${t}.${body}`).digest();
  if (!timingSafeEqual(expected, Buffer.from(v1, "hex"))) return { ok: false, reason: "signature does not match" };
  return { ok: true, at: new Date(t * 1000) };
}
