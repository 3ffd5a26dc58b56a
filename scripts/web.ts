// The console's web server: Next.js behind a thin Node HTTP server, so that the one place that
// knows the TCP peer decides which forwarding headers to believe (JOBSCOPE_TRUSTED_PROXIES) and
// who the client is (lib/http/client-address.ts), before Next.js, better-auth or an action reads
// them. It also refuses a cross-origin POST to a page (a server action) with 403, audited, where
// Next.js answered 500, a body larger than its route takes with 413 before it is read, and a URL
// holding a NUL character with 400 (lib/http/front.ts). `npm start` runs it; `--dev` runs Next.js
// in development mode.
import { createServer } from "node:http";
import { parseArgs } from "node:util";
import next from "next";
import { trustedProxies } from "../lib/http/client-address";
import { frontHandler } from "../lib/http/front";
import { anonymousAudit } from "../lib/audit/anonymous";
import { signInBusy } from "../lib/auth/password-work";

const { values: args } = parseArgs({
  options: {
    port: { type: "string", default: process.env.PORT ?? "3000" },
    host: { type: "string", default: "127.0.0.1" },
    dev: { type: "boolean", default: false },
  },
});
const port = Number(args.port);
const trust = trustedProxies();
const app = next({ dev: args.dev, hostname: args.host, port, dir: process.cwd() });
const handle = app.getRequestHandler();

await app.prepare();
const server = createServer(frontHandler({ trust, handle, audit: anonymousAudit, busy: (req) => signInBusy(req) }));
server.listen(port, args.host, () => console.log(`[jobscope] console listening on http://${args.host}:${port}`));

// Let the aggregated audit counts of the open windows reach the log before the process goes
// (for at most 3 s: a stop must not hang on a database that is going away too).
let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  server.close();
  server.closeAllConnections();
  const flushed = anonymousAudit()
    .flush()
    .catch(() => {});
  void Promise.race([flushed, new Promise((r) => setTimeout(r, 3000))]).finally(() => process.exit(0));
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
