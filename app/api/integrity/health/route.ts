import { pool } from "@/lib/db/client";
import { NO_STORE } from "@/lib/api/http";
import { sql } from "drizzle-orm";
import { execute } from "@/lib/db/drizzle";

// Polled by the console's database banner (components/db-status-banner.tsx): never cached.
export const dynamic = "force-dynamic";

const TIMEOUT_MS = 2_000;

/**
 * Is the database answering? One `SELECT 1` with a short timeout. It says only
 * up or down (no host, no error text: those go to the server log), so it needs no sign-in.
 */
export async function GET() {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      execute(pool(), sql`SELECT 1`),
      new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${TIMEOUT_MS} ms`)), TIMEOUT_MS))),
    ]);
    return Response.json({ ok: true, latencyMs: Math.round(performance.now() - started) }, { headers: NO_STORE });
  } catch (err) {
    console.warn("GET /api/integrity/health: the database is not answering:", err instanceof Error ? err.message : err);
    return Response.json(
      { ok: false, error: { code: "database_unavailable", message: "The database is not answering." } },
      { status: 503, headers: { ...NO_STORE, "Retry-After": "5" } },
    );
  } finally {
    clearTimeout(timer);
  }
}
