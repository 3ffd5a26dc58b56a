/**
 * Token buckets in this process's memory, one per name: the tenant API takes from its tenant's,
 * which all the tenant's keys share (docs/decisions.md, "The tenant API: keys, a rate limit per
 * tenant in the process, actors"). A bucket holds up to `burst` tokens and earns `perMinute / 60`
 * tokens a second; each request spends one.
 */
export type RateLimitConfig = { perMinute: number; burst: number };

export type RateDecision = { ok: true; remaining: number } | { ok: false; retryAfterSeconds: number };

const positive = (raw: string | undefined, fallback: number) => {
  const n = Number(raw);
  return Number.isFinite(n) && n > 0 ? n : fallback;
};

/** JOBSCOPE_API_RATE_PER_MINUTE (default 600) and JOBSCOPE_API_BURST (default 60). */
export function rateLimitFromEnv(env: Record<string, string | undefined> = process.env): RateLimitConfig {
  return { perMinute: positive(env.JOBSCOPE_API_RATE_PER_MINUTE, 600), burst: positive(env.JOBSCOPE_API_BURST, 60) };
}

type Bucket = { tokens: number; at: number };

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly perMs: number;

  constructor(
    readonly config: RateLimitConfig,
    private readonly now: () => number = Date.now,
  ) {
    this.perMs = config.perMinute / 60_000;
  }

  /** Spend one token of `key`'s bucket, or say how long until one is earned. */
  take(key: string): RateDecision {
    const t = this.now();
    const b = this.buckets.get(key) ?? { tokens: this.config.burst, at: t };
    b.tokens = Math.min(this.config.burst, b.tokens + Math.max(0, t - b.at) * this.perMs);
    b.at = t;
    this.buckets.set(key, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      this.sweep(t);
      return { ok: true, remaining: Math.floor(b.tokens) };
    }
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - b.tokens) / this.perMs / 1000)) };
  }

  /** Buckets that have refilled completely say nothing a new bucket would not: forget them (bounded memory). */
  private sweep(t: number) {
    if (this.buckets.size < 10_000) return;
    for (const [k, b] of this.buckets) {
      if (b.tokens + (t - b.at) * this.perMs >= this.config.burst) this.buckets.delete(k);
    }
  }
}

const g = globalThis as unknown as { __jobscopeApiLimiter?: RateLimiter };

/** The process's limiter, configured from the environment on first use. */
export function apiRateLimiter(): RateLimiter {
  g.__jobscopeApiLimiter ??= new RateLimiter(rateLimitFromEnv());
  return g.__jobscopeApiLimiter;
}
