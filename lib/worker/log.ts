import type { LogFields, Logger } from "./types";

const LEVELS = ["debug", "info", "warn", "error"] as const;
type Level = (typeof LEVELS)[number];

/** A one-line-per-message logger on stderr, from `minLevel` up. */
export function consoleLogger(minLevel: Level = "info"): Logger {
  const min = LEVELS.indexOf(minLevel);
  const line = (level: Level) => (msg: string, fields?: LogFields) => {
    if (LEVELS.indexOf(level) < min) return;
    const extra = fields && Object.keys(fields).length > 0 ? ` ${JSON.stringify(fields)}` : "";
    process.stderr.write(`${new Date().toISOString()} ${level.padEnd(5)} ${msg}${extra}\n`);
  };
  return { debug: line("debug"), info: line("info"), warn: line("warn"), error: line("error") };
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/** A logger that adds `bound` to every message's fields. */
export function withFields(log: Logger, bound: LogFields): Logger {
  return {
    debug: (m, f) => log.debug(m, { ...bound, ...f }),
    info: (m, f) => log.info(m, { ...bound, ...f }),
    warn: (m, f) => log.warn(m, { ...bound, ...f }),
    error: (m, f) => log.error(m, { ...bound, ...f }),
  };
}

export function errorFields(e: unknown): LogFields {
  return e instanceof Error ? { error: `${e.name}: ${e.message}` } : { error: String(e) };
}
