import type { IncomingMessage, ServerResponse } from "node:http";
import type { AnonymousAuditor } from "../audit/anonymous";
import { badText } from "../input";
import { bodyLimitFor, limitBody } from "./body-limit";
import { sanitizeForwarding, type TrustedProxies } from "./client-address";
import { isCrossOriginPagePost } from "./origin";

export type FrontOptions = {
  trust: TrustedProxies;
  /** Next.js's request handler: what a request reaches once the front let it through. */
  handle: (req: IncomingMessage, res: ServerResponse) => unknown;
  audit: () => AnonymousAuditor;
  /**
   * A request to refuse at once with 503 and this many seconds to wait, or null: a sign-in while
   * password hashing has no room (lib/auth/password-work.ts) is answered here, before Next.js spends
   * anything on it — a flood of them otherwise takes the event loop from signed-in pages.
   */
  busy?: (req: IncomingMessage) => number | null;
};

function refuseCrossOrigin(req: IncomingMessage, res: ServerResponse, client: string, audit: () => AnonymousAuditor) {
  void audit().record(
    {
      via: "console",
      action: "console.cross_origin",
      outcome: "denied",
      reason: `a POST to ${(req.url ?? "/").split("?")[0]!.slice(0, 120)} from another origin was refused`,
    },
    client,
  );
  res.writeHead(403, { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" });
  res.end("Forbidden: this request came from another site.\n");
}

/**
 * The console's front door (scripts/web.ts puts it before Next.js): it alone knows the TCP peer, so
 * it decides which forwarding headers to believe and who the client is (lib/http/client-address.ts),
 * and refuses a cross-origin POST to a page (a server action) with 403, audited, where Next.js
 * answered 500. Every route and action at once, it also refuses:
 * - a body larger than its path takes (lib/http/body-limit.ts): 413, before it is read;
 * - a URL whose path or query holds a NUL character (lib/input.ts), which pages and routes would
 *   pass to PostgreSQL: 400.
 */
export function frontHandler(opts: FrontOptions) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const client = sanitizeForwarding(req, opts.trust);
    if (isCrossOriginPagePost(req)) return refuseCrossOrigin(req, res, client, opts.audit);
    if (badUrl(req.url ?? "/")) return refuseBadUrl(res);
    const wait = opts.busy?.(req) ?? null;
    if (wait !== null) {
      // Audited as the sign-in guard audits it: aggregated per address, capped (lib/audit/anonymous.ts).
      void opts
        .audit()
        .record(
          { via: "console", action: "auth.sign_in", outcome: "denied", reason: "refused: too many sign-ins being checked at once (try again)" },
          client,
        );
      return refuseBusy(res, wait);
    }
    const url = req.url ?? "/";
    limitBody(req, res, bodyLimitFor(url), () => void opts.handle(req, res));
  };
}

/** A URL that decodes to text PostgreSQL cannot store, or does not decode at all. */
function badUrl(url: string): boolean {
  if (!url.includes("%")) return false;
  try {
    return badText(decodeURIComponent(url.replace(/\+/g, " "))) !== null;
  } catch {
    // Malformed percent-encoding: Next.js answers these itself (400), as before.
    return false;
  }
}

function refuseBusy(res: ServerResponse, seconds: number) {
  res.writeHead(503, { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store", "Retry-After": String(seconds) });
  res.end(JSON.stringify({ code: "BUSY", message: `The server is checking many sign-ins right now: try again in ${seconds} s.` }));
}

function refuseBadUrl(res: ServerResponse) {
  res.writeHead(400, { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" });
  res.end("Bad request: the address contains a NUL character.\n");
}
