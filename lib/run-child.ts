import { spawn, type ChildProcess, type SpawnOptions } from "node:child_process";

/**
 * Run a command to its end and resolve with its exit code, without blocking the event loop.
 *
 * Not `spawnSync` where this process also hosts an embedded PostgreSQL: the server's log goes
 * through a pipe that this process drains. Blocked in `spawnSync`, nothing drains it; once 64 kB
 * of log are waiting (a few errors quoting 20 kB of bad input suffice), every backend that logs
 * blocks in write(2) to stderr, mid-statement, and its client waits forever (the input fuzz on
 * PostgreSQL 15 in `npm run test:pg-oldest` hung so: a backend stuck in BIND, wchan
 * sock_alloc_send_pskb on fd 2).
 */
export function runChild(cmd: string, args: readonly string[], opts: SpawnOptions = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: "inherit", ...opts });
    child.once("error", reject);
    child.once("exit", (code, signal) => resolve(code ?? (signal ? 128 : 1)));
  });
}

export type KeptChild = {
  /** The running process's pid, or null between a death and its restart. */
  pid(): number | null;
  /** How many times it was started again after dying. */
  restarts(): number;
  /** Stop keeping it: signal the running process once, and resolve when it has exited (SIGKILL after `killAfterMs`). */
  stop(signal?: NodeJS.Signals, killAfterMs?: number): Promise<void>;
};

/** How long a child must have run for its next death to be restarted at once rather than after a longer wait. */
export const HEALTHY_AFTER_MS = 30_000;
const FIRST_DELAY_MS = 1_000;
const MAX_DELAY_MS = 30_000;

/**
 * Keep a child process running, as a process manager would (systemd's `Restart=always`): whenever it
 * exits — a crash, a SIGKILL, a clean exit after a drain — it is started again, after 1 s, doubling up
 * to 30 s while it keeps dying young (a child that cannot start must not spin the machine), and back
 * to 1 s once it has run for HEALTHY_AFTER_MS. Until `stop()`.
 */
export function keepChild(
  name: string,
  cmd: string,
  args: readonly string[],
  opts: SpawnOptions & { log?: (line: string) => void; delays?: { firstMs?: number; maxMs?: number } } = {},
): KeptChild {
  const { log = () => {}, delays = {}, ...spawnOpts } = opts;
  const firstMs = delays.firstMs ?? FIRST_DELAY_MS;
  const maxMs = delays.maxMs ?? MAX_DELAY_MS;
  let child: ChildProcess | null = null;
  let stopping = false;
  let restarts = 0;
  let delay = firstMs;
  let timer: NodeJS.Timeout | null = null;
  const exited = new Set<() => void>();

  const start = () => {
    timer = null;
    if (stopping) return;
    const startedAt = Date.now();
    const c = spawn(cmd, args, { stdio: "inherit", ...spawnOpts });
    child = c;
    // A spawn that fails (no such command) emits `error` and then `exit`, or `error` alone.
    c.once("error", (e) => log(`${name} could not be started: ${e.message}`));
    c.once("exit", (code, signal) => {
      if (child === c) child = null;
      for (const r of [...exited]) r();
      if (stopping) return;
      delay = Date.now() - startedAt >= HEALTHY_AFTER_MS ? firstMs : delay;
      log(`${name} exited (${signal ?? `code ${code}`}): restarting it in ${delay < 1000 ? `${delay} ms` : `${delay / 1000} s`}`);
      restarts++;
      timer = setTimeout(start, delay);
      delay = Math.min(maxMs, delay * 2);
    });
  };
  start();

  return {
    pid: () => child?.pid ?? null,
    restarts: () => restarts,
    async stop(signal = "SIGTERM", killAfterMs = 40_000) {
      stopping = true;
      if (timer) clearTimeout(timer);
      const c = child;
      if (!c || c.exitCode !== null || c.signalCode !== null) return;
      const gone = new Promise<void>((r) => exited.add(r));
      c.kill(signal);
      const kill = setTimeout(() => c.kill("SIGKILL"), killAfterMs);
      await gone;
      clearTimeout(kill);
    },
  };
}
