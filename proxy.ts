import { NextResponse, type NextRequest } from "next/server";

/**
 * A per-request Content-Security-Policy nonce. Next.js reads the policy from
 * the request headers and puts the nonce on its own scripts; any other script
 * (an injected one) does not run. Styles stay 'unsafe-inline': charts and
 * React `style` attributes need it, and styles cannot run code.
 */
export function proxy(request: NextRequest) {
  const nonce = btoa(crypto.randomUUID());
  const dev = process.env.NODE_ENV === "development";
  const csp = [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${dev ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
  const headers = new Headers(request.headers);
  headers.set("x-nonce", nonce);
  headers.set("Content-Security-Policy", csp);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set("Content-Security-Policy", csp);
  return response;
}

export const config = {
  // Pages only: JSON endpoints and static files carry no scripts.
  matcher: [{ source: "/((?!api/|_next/static|_next/image|icon.svg).*)" }],
};
