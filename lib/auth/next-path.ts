/** An origin no request ever has: `next` is resolved against it to see where a browser would go. */
const BASE = "http://next.jobscope.invalid";

/**
 * Browsers strip tab, CR and LF from URLs and read a backslash as a slash, so `/\t/evil.example`
 * and `/\evil.example` are followed to `//evil.example`; a CR, LF or U+2028 in a Location header
 * made Next.js answer 500. Such a `next` is refused outright rather than cleaned.
 */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\\]/;

/**
 * Where to send a person after signing in: a path on this site, or "/". Only a path that
 * resolves to this origin is accepted, returned in its normalized form (what a browser would
 * request); anything else — another host, a scheme, a protocol-relative URL, control
 * characters, backslashes, or more than 2,000 characters — is "/". Never throws.
 */
export function safeNext(next: string | undefined | null): string {
  if (typeof next !== "string" || next.length === 0 || next.length > 2000) return "/";
  if (UNSAFE.test(next) || !next.startsWith("/") || next.startsWith("//")) return "/";
  let url: URL;
  try {
    url = new URL(next, BASE);
  } catch {
    return "/";
  }
  if (url.origin !== BASE) return "/";
  const path = `${url.pathname}${url.search}${url.hash}`;
  return path.startsWith("/") && !path.startsWith("//") ? path : "/";
}
