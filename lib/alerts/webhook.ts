import { lookup } from "node:dns/promises";
import type { Db } from "../db/client";
import type { BackoffOptions } from "../worker/backoff";
import { PermanentError } from "../worker/errors";
import type { Handlers } from "../worker/types";
import { internalAddress, internalHost } from "./rules";
import { sign, SIGNATURE_HEADER } from "./signature";

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

/**
 * The handler of `jobscope.webhook` jobs, for a worker to register beside its own:
 * `handlers: { ...myHandlers, ...alertHandlers(sql) }` (`npm run worker` does). It reads the alert
 * and its rule's URL and secret (never in the job's params, which the console shows), POSTs the
 * signed body, and succeeds on a 2xx; any other answer or a network error fails the attempt, and
 * the engine retries it with WEBHOOK_RETRY until the job's attempts run out (then it is dead, and
 * an operator can replay it). Redirects are not followed. A tenant's webhook must not resolve to
 * an internal address (checked again here, after DNS).
 */
export function alertHandlers(sql: Db, opts: { retry?: Partial<BackoffOptions>; timeoutMs?: number } = {}): Handlers {
  return {
    "jobscope.webhook": {
      retry: { ...WEBHOOK_RETRY, ...opts.retry },
      run: async (ctx) => {
        const [e] = await sql<{ id: number; at: Date; summary: string; payload: Record<string, unknown>; tenantId: string | null; ruleId: string; name: string; kind: string; url: string; secret: string }[]>`
          SELECT e.id, e.at, e.summary, e.payload, e.tenant_id, r.id AS rule_id, r.name, r.kind, r.url, r.secret
            FROM alert_events e JOIN alert_rules r ON r.id = e.rule_id WHERE e.id = ${ctx.job.params.eventId}`;
        if (!e) throw new PermanentError(`alert ${ctx.job.params.eventId} does not exist`);
        const url = new URL(e.url);
        if (e.tenantId !== null && process.env.JOBSCOPE_ALERTS_ALLOW_PRIVATE !== "1") {
          const addresses = internalHost(url.hostname) ? [{ address: url.hostname }] : await lookup(url.hostname, { all: true });
          if (addresses.some((a) => internalAddress(a.address.replace(/^\[|\]$/g, "")) || internalHost(a.address))) {
            throw new PermanentError(`${url.hostname} resolves to an internal address: a tenant's alert is not sent there`);
          }
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
        let res: Response;
        try {
          res = await fetch(url, {
            method: "POST",
            redirect: "manual",
            signal: AbortSignal.any([ctx.signal, AbortSignal.timeout(opts.timeoutMs ?? WEBHOOK_TIMEOUT_MS)]),
            headers: {
              "content-type": "application/json",
              "user-agent": "Jobscope-Webhook/1",
              [SIGNATURE_HEADER]: sign(e.secret, text),
              "jobscope-event-id": String(e.id),
              "jobscope-delivery-attempt": String(ctx.attempt),
            },
            body: text,
          });
        } catch (err) {
          throw new WebhookError(`${url.host}: ${err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err)}`);
        }
        const reply = (await res.text().catch(() => "")).slice(0, 200);
        if (res.status < 200 || res.status >= 300) throw new WebhookError(`HTTP ${res.status} from ${url.host}${reply ? `: ${reply}` : ""}`);
        return { status: res.status, ms: Date.now() - t0 };
      },
    },
  };
}
