import { CronExpressionParser, type CronExpression } from "cron-parser";
import cronstrue from "cronstrue";

/**
 * Cron expressions, read by cron-parser (pinned in package.json) in an IANA time zone. Accepted:
 * five fields (minute hour day-of-month month day-of-week), six with seconds first, or an alias
 * (`@hourly`, `@daily`, `@weekly`, `@monthly`, `@yearly`). cron-parser alone would also take four
 * fields or fewer (it fills the rest with `*`): a typo would then run every minute, so the field
 * count is checked here first. A schedule fires at most once a minute: see `checkCron`.
 */
export type CronCheck = { ok: true } | { ok: false; message: string };

const ALIASES = new Set(["@yearly", "@annually", "@monthly", "@weekly", "@daily", "@hourly"]);

/** An IANA zone name the runtime knows ("UTC", "Europe/Berlin"); offsets and abbreviations are refused. */
export function isTimeZone(tz: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]{0,99}$/.test(tz)) return false;
  try {
    new Intl.DateTimeFormat("en", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

function parse(cron: string, tz: string, currentDate: Date): CronExpression {
  return CronExpressionParser.parse(cron.trim(), { tz, currentDate });
}

export function checkCron(cron: string, tz: string): CronCheck {
  const text = cron.trim();
  if (!text) return { ok: false, message: "a cron expression is required" };
  if (text.startsWith("@")) {
    if (!ALIASES.has(text.toLowerCase())) return { ok: false, message: `unknown alias ${text}; one of ${[...ALIASES].join(", ")}` };
  } else {
    const fields = text.split(/\s+/).length;
    if (fields !== 5 && fields !== 6)
      return { ok: false, message: `expected 5 fields (minute hour day month weekday) or 6 (seconds first), got ${fields}` };
  }
  if (!isTimeZone(tz))
    return { ok: false, message: `unknown time zone ${JSON.stringify(tz.slice(0, 100))}; an IANA name such as UTC or Europe/Berlin` };
  let parsed: CronExpression;
  try {
    parsed = parse(text, tz, new Date());
    parsed.next();
  } catch (e) {
    return { ok: false, message: e instanceof Error ? e.message : String(e) };
  }
  // Several values in the seconds field: ticks less than a minute apart. The supervisor looks for due
  // schedules about once a second and submits the latest tick that has come, so such ticks were
  // skipped (a fifth of every-second ticks, recorded only as missed): refused, with the reason.
  const seconds = parsed.fields.second.values.length;
  if (seconds > 1) {
    return {
      ok: false,
      message:
        `this fires ${seconds} times a minute (${describeCron(text) ?? text}); a schedule fires at most once a minute. ` +
        'Give the seconds field one value ("0 * * * * *"), or use 5 fields; work that must run more often belongs in a worker\'s loop',
    };
  }
  return { ok: true };
}

/** The expression in words ("At 02:00, Monday through Friday"), in 24-hour time; null when it does not parse. */
export function describeCron(cron: string): string | null {
  try {
    return cronstrue.toString(cron.trim(), { use24HourTimeFormat: true, throwExceptionOnParseError: true });
  } catch {
    return null;
  }
}

/** The first tick strictly after `after`. */
export function nextTick(cron: string, tz: string, after: Date): Date {
  return parse(cron, tz, after).next().toDate();
}

/** The last tick at or before `at`. */
export function latestTick(cron: string, tz: string, at: Date): Date {
  return parse(cron, tz, new Date(at.getTime() + 1))
    .prev()
    .toDate();
}

/** The next `n` ticks strictly after `after`. */
export function upcomingTicks(cron: string, tz: string, after: Date, n: number): Date[] {
  const e = parse(cron, tz, after);
  return Array.from({ length: n }, () => e.next().toDate());
}

/**
 * The ticks in [from, to), counted up to `cap`: how many a schedule missed while nothing ran
 * (the count is a lower bound when it reaches the cap).
 */
export function countTicks(cron: string, tz: string, from: Date, to: Date, cap = 10_000): number {
  const e = parse(cron, tz, new Date(from.getTime() - 1));
  let n = 0;
  while (n < cap) {
    const t = e.next().toDate();
    if (t >= to) break;
    n++;
  }
  return n;
}
