import http from "node:http";
import https from "node:https";
import type { Db } from "../db/client";
import type { BackoffOptions } from "../worker/backoff";
import { PermanentError } from "../worker/errors";
import type { Handlers } from "../worker/types";
import { checkedLookup, DestinationError, destinationPolicy, refusedHost } from "./destination";
import { sign, SIGNATURE_HEADER } from "./signature";
import { sql } from "drizzle-orm";
import { execute } from "../db/drizzle";

/** Delivery retries: 10 s doubling to an hour, over the type's 8 attempts (about 20 min in all before the job is dead). */
export const WEBHOOK_RETRY: BackoffOptions = { baseMs: 10_000, capMs: 3_600_000, jitter: 0.25 };
export const WEBHOOK_TIMEOUT_MS = 10_000;

/** What a receiver gets: the alert, as JSON, signed (signature.ts). */
export type WebhookBody = {
  id: number;
  rule: { id: string; name: string; kind: string };
  tenantId: string | null;
  at: string;
  summary: string;
  data: Record<string, unknown>;
};

class WebhookError extends Error {
  override name = "WebhookError";
}

type Lookup = ReturnType<typeof checkedLookup>;

/**
 * POST `body` to `url` and resolve to the answer's status. The reply itself is never read: whether
 * the delivery worked is all the job records, so a receiver's words (an internal service's page, its
 * errors) cannot reach the rule's owner. No redirect is followed.
 */
function post(
  url: URL,
  body: string,
  headers: Record<string, string>,
  opts: { lookup?: Lookup; timeoutMs: number; signal: AbortSignal },
): Promise<number> {
  return new Promise((resolve, reject) => {
    const send = url.protocol === "https:" ? https.request : http.request;
    const req = send(
      url,
      {
        method: "POST",
        headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
        agent: false,
        lookup: opts.lookup,
        timeout: opts.timeoutMs,
        signal: opts.signal,
      },
      (res) => {
        resolve(res.statusCode ?? 0);
        res.destroy();
      },
    );
    req.on("timeout", () => req.destroy(Object.assign(new Error(`no answer within ${opts.timeoutMs} ms`), { code: "ETIMEDOUT" })));
    req.on("error", reject);
    req.end(body);
  });
}

/**
 * The handler of `jobscope.webhook` jobs, for a worker to register beside its own:
 * `handlers: { ...myHandlers, ...alertHandlers(db) }` (`npm run worker` does). It reads the alert
 * and its rule's URL and secret (never in the job's params, which the console shows), POSTs the
 * signed body, and succeeds on a 2xx; any other answer or a network error fails the attempt, and
 * the engine retries it with WEBHOOK_RETRY until the job's attempts run out (then it is dead, and
 * an operator can replay it). A tenant's webhook is checked per resolved address as its socket
 * connects (lib/alerts/destination.ts); a refused destination fails the job for good. What the
 * attempt records is whether it worked (the status, or the network error's code), never the reply.
 * `resolve` stands in for DNS in tests.
 */
export function alertHandlers(
  db: Db,
  opts: { retry?: Partial<BackoffOptions>; timeoutMs?: number; resolve?: Parameters<typeof checkedLookup>[1] } = {},
): Handlers {
  return {
    "jobscope.webhook": {
      retry: { ...WEBHOOK_RETRY, ...opts.retry },
      run: async (ctx) => {
        const [e] = await execute<{
          id: number;
          at: Date;
          summary: string;
          payload: Record<string, unknown>;
          tenantId: string | null;
          ruleId: string;
          name: string;
          kind: string;
          url: string;
          secret: string;
        }>(
          db,
          sql`
          SELECT e.id, e.at, e.summary, e.payload, e.tenant_id, r.id AS rule_id, r.name, r.kind, r.url, r.secret
            FROM alert_events e JOIN alert_rules r ON r.id = e.rule_id WHERE e.id = ${ctx.job.params.eventId}`,
        );
        if (!e) throw new PermanentError(`alert ${ctx.job.params.eventId} does not exist`);
        const url = new URL(e.url);
        // Operators' rules may reach internal receivers; tenants' may not (JOBSCOPE_ALERTS_ALLOW_PRIVATE=1 lifts it, for development).
        const filtered = e.tenantId !== null && process.env.JOBSCOPE_ALERTS_ALLOW_PRIVATE !== "1";
        const policy = destinationPolicy();
        if (filtered) {
          const why = refusedHost(url.hostname, policy);
          if (why) throw new PermanentError(`${url.host} is ${why}: a tenant's webhook is not sent there`);
        }
        const body: WebhookBody = {
          id: Number(e.id),
          rule: { id: e.ruleId, name: e.name, kind: e.kind },
          tenantId: e.tenantId,
          at: new Date(e.at).toISOString(),
          summary: e.summary,
          data: e.payload,
        };
        const text = JSON.stringify(body);
        const t0 = Date.now();
        let status: number;
        try {
          status = await post(
            url,
            text,
            {
              "content-type": "application/json",
              "user-agent": "Jobscope-Webhook/1",
              [SIGNATURE_HEADER]: sign(e.secret, text),
              "jobscope-event-id": String(e.id),
              "jobscope-delivery-attempt": String(ctx.attempt),
            },
            {
              lookup: filtered ? checkedLookup(policy, opts.resolve) : undefined,
              timeoutMs: opts.timeoutMs ?? WEBHOOK_TIMEOUT_MS,
              signal: ctx.signal,
            },
          );
        } catch (err) {
          if (err instanceof DestinationError) throw new PermanentError(err.message);
          const code = (err as NodeJS.ErrnoException | null)?.code;
          throw new WebhookError(`${url.host}: not delivered (${code ?? (err instanceof Error ? err.name : "error")})`);
        }
        if (status < 200 || status >= 300) throw new WebhookError(`HTTP ${status} from ${url.host}`);
        return { status, ms: Date.now() - t0 };
      },
    },
  };
}
