import { spawn, type SpawnOptions } from "node:child_process";

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
