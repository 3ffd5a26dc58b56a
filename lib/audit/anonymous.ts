import { pool, type Db } from "../db/client";
import { ANONYMOUS, recordAudit, type AuditEntry, type AuditPrincipal } from "./audit";

/** What a refusal records besides its principal (`anonymous` unless a signed-in user is named). */
export type AnonymousEntry = Omit<AuditEntry, "userId" | "actor" | "role" | "tenantId" | "repeatCount">;

export type AnonymousAuditorOptions = {
  /** Attempts alike (same via, action, outcome, reason and client address) within this window become one row. */
  windowMs?: number;
  /** At most this many windows are opened per window length; beyond it, attempts are pooled per action without an address. */
  maxWindows?: number;
  log?: (line: string) => void;
};

type Window = { entry: AnonymousEntry; principal: AuditPrincipal; source: string; extra: number };

/**
 * The audit log takes anonymous denials at the rate a flood sends them (a hundred rows in under a second)
 * and keeps them forever; so they are aggregated. The first attempt of a kind from an address is
 * written at once; the ones like it (same reason too) in the next `windowMs` are counted in memory and written as one
 * row with `repeat_count` when the window closes. The number of windows per period is capped, so
 * many addresses cannot multiply the rows either: past the cap, attempts pool into one window per
 * action and outcome. Rows per minute are thus bounded by about 2 × maxWindows plus the number of
 * actions, whatever arrives. Counts of a window still open are lost if the process dies (at most
 * one window's worth per kind); `flush()` writes them on a clean stop.
 *
 * A signed-in user's refusals that write nothing else (denied, invalid input: lib/frame/action.ts,
 * lib/audit/console.ts) go through the same windows with their principal as part of what makes
 * attempts alike: a script or a stuck button repeating a refused request is one row a minute, and
 * past the cap each user's refusals pool into one window per action and outcome.
 */
export function createAnonymousAuditor(db: () => Db, opts: AnonymousAuditorOptions = {}) {
  const windowMs = opts.windowMs ?? 60_000;
  const maxWindows = opts.maxWindows ?? 60;
  const log = opts.log ?? ((line: string) => console.error(line));
  const open = new Map<string, Window>();
  let opened: number[] = [];

  // Never throws, not even synchronously: a refusal is answered whether or not its row can be written.
  const write = (w: Window, repeatCount: number, reason: string) =>
    Promise.resolve()
      .then(() => recordAudit(db(), { ...w.principal, ...w.entry, reason, repeatCount }))
      .catch((err: unknown) =>
        log(
          `[jobscope] could not audit a refused ${w.entry.outcome} ${w.entry.action} by ${w.principal.actor}: ${err instanceof Error ? err.message : String(err)}`,
        ),
      );

  function close(key: string) {
    const w = open.get(key);
    open.delete(key);
    if (!w || w.extra === 0) return Promise.resolve();
    const from = w.source === "*" ? "from many addresses" : `from ${w.source}`;
    return write(
      w,
      w.extra,
      `${w.extra} more like this ${from} within ${Math.round(windowMs / 1000)} s (aggregated): ${w.entry.reason ?? ""}`.slice(0, 2000),
    );
  }

  return {
    /** Record one refused attempt (anonymous unless `principal` names who); resolves once its row (if any is due now) is written. */
    record(entry: AnonymousEntry, source: string, principal: AuditPrincipal = ANONYMOUS): Promise<void> {
      const now = Date.now();
      opened = opened.filter((t) => now - t < windowMs);
      const who = `${principal.userId ?? ""}|${principal.actor}`;
      // The reason is part of what makes attempts alike: wrong passwords for two accounts from one
      // address are two stories (the second account's name must not vanish into the first's row).
      // So are the jobs a signed-in user's request named.
      let key = `${who}|${entry.via}|${entry.action}|${entry.outcome}|${entry.reason ?? ""}|${(entry.jobIds ?? []).join(",")}|${source}`;
      let existing = open.get(key);
      if (!existing && opened.length >= maxWindows) {
        key = `${who}|${entry.via}|${entry.action}|${entry.outcome}|*`;
        existing = open.get(key);
        source = "*";
      }
      if (existing) {
        existing.extra++;
        return Promise.resolve();
      }
      const w: Window = { entry, principal, source, extra: 0 };
      open.set(key, w);
      opened.push(now);
      setTimeout(() => void close(key), windowMs).unref();
      // A signed-in user's or a key's row already says who; an anonymous one says from where.
      if (principal.actor !== ANONYMOUS.actor) return write(w, 1, (entry.reason ?? "").slice(0, 2000));
      const from = source === "*" ? "from one of many addresses" : `from ${source}`;
      return write(w, 1, `${entry.reason ?? ""} (${from})`.slice(0, 2000));
    },
    /** Write every open window's count now (tests; a clean shutdown). */
    async flush(): Promise<void> {
      await Promise.all([...open.keys()].map(close));
    },
  };
}

export type AnonymousAuditor = ReturnType<typeof createAnonymousAuditor>;

const g = globalThis as unknown as { __jobscopeAnonymousAudit?: AnonymousAuditor };

/** The process's auditor for refusals, anonymous or signed in (one per process: server actions, route handlers and the web server share it). */
export function anonymousAudit(): AnonymousAuditor {
  g.__jobscopeAnonymousAudit ??= createAnonymousAuditor(pool);
  return g.__jobscopeAnonymousAudit;
}
