import type { IncomingMessage, ServerResponse } from "node:http";
import { MAX_BODY_BYTES } from "../api/http";

/**
 * The largest request body each part of the console takes, by path prefix (the first that matches).
 * The web server (lib/http/front.ts) applies them before Next.js reads a byte: better-auth's
 * handler and Next.js's route handlers read a body of any size, and one anonymous 200 MB sign-in
 * took the web process from 484 MB to 1.3 GB. Pages take server actions, whose limit is Next.js's
 * own `serverActions.bodySizeLimit` (next.config.js), the same number.
 */
export const PAGE_BODY_LIMIT = 1024 * 1024;
export const BODY_LIMITS: readonly { prefix: string; bytes: number }[] = [
  // Sign-in, sign-out, password changes: a few short fields.
  { prefix: "/api/auth/", bytes: 16 * 1024 },
  { prefix: "/api/v1/", bytes: MAX_BODY_BYTES },
  // The console's own routes are GETs.
  { prefix: "/api/", bytes: 16 * 1024 },
  { prefix: "/", bytes: PAGE_BODY_LIMIT },
];

export const bodyLimitFor = (url: string): number => BODY_LIMITS.find((l) => url.startsWith(l.prefix))?.bytes ?? 16 * 1024;

export function refuseTooLarge(res: ServerResponse, limit: number): void {
  // Connection: close — the rest of the body is never read; the socket goes once this answer is out.
  res.writeHead(413, { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store", Connection: "close" });
  res.end(`Request body too large: this address takes at most ${limit} bytes.\n`);
}

/**
 * Let `req` on to `next` only if its body is within `limit` bytes, without reading more than that:
 * - a Content-Length over the limit is refused at once (Node's parser never delivers more than it declares);
 * - a body without one (chunked) is held here as it arrives, up to the limit, and handed on whole
 *   once complete; past the limit it is refused and the socket stops being read.
 * Holding a chunked body means intercepting what Node's HTTP parser pushes into the request stream
 * (`IncomingMessage.push`), the one place a body's bytes pass before anyone consumes them.
 */
export function limitBody(req: IncomingMessage, res: ServerResponse, limit: number, next: () => void): void {
  const declared = req.headers["content-length"];
  if (declared !== undefined) {
    if (Number(declared) > limit) return refuseTooLarge(res, limit);
    return next();
  }
  if (req.headers["transfer-encoding"] === undefined) return next();
  const push = req.push.bind(req);
  const held: Buffer[] = [];
  // Bytes a pipelined request may have buffered before it was handed to us count too.
  let size = req.readableLength;
  req.push = (chunk: unknown, encoding?: BufferEncoding) => {
    if (chunk === null) {
      req.push = push;
      for (const c of held) push(c);
      const more = push(null);
      next();
      return more;
    }
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string, encoding);
    size += buf.length;
    if (size > limit) {
      // Drop this and whatever follows; `false` makes the parser stop reading the socket.
      req.push = () => false;
      held.length = 0;
      refuseTooLarge(res, limit);
      return false;
    }
    held.push(buf);
    return true;
  };
}
