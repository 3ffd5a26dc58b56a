import { randomBytes } from "node:crypto";

/**
 * Device cookies (OWASP's "Slow Down Online Guessing Attacks with Device Cookies"): after a
 * successful sign-in the browser gets a cookie, signed with the deployment's secret, that names the
 * account. Wrong passwords sent with a valid device cookie for that account count against that
 * device alone; wrong passwords from anywhere else count against the account. So a stranger who
 * floods an account with wrong passwords locks it for strangers only: its owner still signs in from a
 * browser they signed in from before. The sign-in guard (lib/auth/sign-in-guard.ts) reads and writes
 * it through better-auth's signed cookies (HMAC-SHA256 with the deployment secret).
 */

/** better-auth's name for it ("better-auth.device", with its __Secure- prefix where sessions have one). */
export const DEVICE_COOKIE = "device";
/** How long a device stays known without signing in again. */
export const DEVICE_MAX_AGE_SECONDS = 180 * 86_400;

export type Device = {
  /** The cookie's own identity: its failures are counted under it. */
  id: string;
  email: string;
  issuedAt: number;
};

const normal = (email: string) => email.trim().toLowerCase();

/** The signed cookie's value for `email`, issued now: nonce, issue time (seconds), the email. */
export function deviceValue(email: string, now = Date.now()): string {
  return `${randomBytes(12).toString("base64url")}.${Math.floor(now / 1000)}.${Buffer.from(normal(email)).toString("base64url")}`;
}

/** The device a verified cookie value names, if it is for `email` and not older than DEVICE_MAX_AGE_SECONDS. */
export function deviceFor(value: string | null | false | undefined, email: string, now = Date.now()): Device | null {
  if (!value) return null;
  const [nonce, issued, encoded] = value.split(".");
  if (!nonce || !issued || encoded === undefined || !/^\d{1,12}$/.test(issued)) return null;
  const issuedAt = Number(issued);
  const age = now / 1000 - issuedAt;
  if (age < -60 || age > DEVICE_MAX_AGE_SECONDS) return null;
  const named = Buffer.from(encoded, "base64url").toString("utf8");
  if (!email || named !== normal(email)) return null;
  return { id: `${nonce}.${issued}`, email: named, issuedAt };
}
