import { randomFillSync } from "node:crypto";

const pool = Buffer.alloc(16 * 256);
let offset = pool.length;

/**
 * A time-ordered id (UUID version 7, RFC 9562): 48 bits of Unix milliseconds, then random bits.
 * Jobs submitted together sit together in every index keyed by id, so a burst of inserts and the
 * claims and finishes that follow touch a few right-hand pages instead of random ones.
 * `at` back-dates it with the job (the demo seeder, the benchmark's generator).
 */
export function uuidv7(at: number = Date.now()): string {
  if (offset === pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const b = pool.subarray(offset, offset + 16);
  offset += 16;
  const ms = Math.max(0, Math.floor(at));
  b[0] = (ms / 2 ** 40) & 0xff;
  b[1] = (ms / 2 ** 32) & 0xff;
  b[2] = (ms >>> 24) & 0xff;
  b[3] = (ms >>> 16) & 0xff;
  b[4] = (ms >>> 8) & 0xff;
  b[5] = ms & 0xff;
  b[6] = (b[6]! & 0x0f) | 0x70;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** The millisecond a UUID version 7 was made for. */
export function uuidv7Time(id: string): number {
  return parseInt(id.replace(/-/g, "").slice(0, 12), 16);
}

/**
 * The same in SQL, for set-based loaders (the benchmark's generator): a UUID version 7 for the
 * time `ts` (an SQL expression), on any PostgreSQL this project supports (uuidv7() is 18+).
 */
export const uuidv7Expr = (ts: string) =>
  `(lpad(to_hex(floor(extract(epoch FROM ${ts}) * 1000)::bigint), 12, '0') || '7' || substr(md5(random()::text), 1, 3)
    || to_hex(8 + floor(random() * 4)::int) || substr(md5(random()::text), 1, 15))::uuid`;
