import type { ActorKind, JobEvent, JobState } from "../fsm/table";
import { formatClock, formatDuration, zoneLabel } from "../time-format";
import type { Audience, BaselineScope, CauseKind, Claim, ClaimOf, Explanation, Phase, Who } from "./claims";
import { claimsOf, lossCost, MINOR_SHARE, NAMED_FLOOR_MS } from "./explain";

/**
 * The words of an explanation (lib/insight/explain.ts), for staff or for a tenant, from the same
 * claims: every number in a sentence is a claim's, so a sentence cannot say more than the claims do,
 * and the claim checker (lib/insight/check.ts) checks those. A tenant's words name no worker, no
 * other job and no other customer, and none of the machinery's terms.
 */

export const PHASE_LABELS: Record<Audience, Record<Phase, string>> = {
  staff: {
    scheduled: "scheduled delay",
    queue_wait: "waiting in the queue",
    claimed: "claimed, not started",
    running: "running",
    paused: "paused",
    retry_backoff: "retry backoff",
    lost_to_lease: "lost with silent workers",
    dead: "dead until replayed",
  },
  tenant: {
    scheduled: "scheduled start",
    queue_wait: "waiting its turn",
    claimed: "starting",
    running: "running",
    paused: "paused",
    retry_backoff: "waiting to retry",
    lost_to_lease: "lost to an interrupted try",
    dead: "stopped, until it was restarted",
  },
};

/** The chip before the sentence: the cause it leads with, in the reader's words. */
export const CAUSE_CHIPS: Record<CauseKind, Record<Audience, string>> = {
  none: { staff: "just submitted", tenant: "just submitted" },
  nothing_unusual: { staff: "nothing unusual", tenant: "nothing unusual" },
  failed: { staff: "failed", tenant: "failed" },
  gave_up: { staff: "given up by a person", tenant: "stopped by a person" },
  cancelled: { staff: "cancelled", tenant: "cancelled" },
  poison: { staff: "poison job", tenant: "stopped after repeated crashes" },
  crashed_workers: { staff: "crashed its workers", tenant: "interrupted repeatedly" },
  lost_attempt: { staff: "work lost with a worker", tenant: "interrupted try" },
  slow_run: { staff: "slow run", tenant: "the work took longer" },
  running: { staff: "running", tenant: "the work itself" },
  queue_paused: { staff: "queue paused", tenant: "processing paused" },
  queue_limit: { staff: "queue at its limit", tenant: "at capacity" },
  no_worker: { staff: "no worker serving the queue", tenant: "no capacity" },
  jobs_ahead: { staff: "waiting its turn", tenant: "waiting its turn" },
  retry_backoff: { staff: "retry backoff", tenant: "waiting to retry" },
  scheduled: { staff: "scheduled delay", tenant: "scheduled start" },
  paused: { staff: "paused", tenant: "paused" },
  dead: { staff: "dead until replayed", tenant: "stopped until restarted" },
  claimed: { staff: "slow to start", tenant: "slow to start" },
};

/** A person's decision that the sentences tell beside the lead, in the past tense ("It was replayed by …"). */
const DECISION_VERBS: Partial<Record<JobEvent, Record<Audience, string>>> = {
  pause: { staff: "paused", tenant: "paused" },
  resume: { staff: "resumed", tenant: "resumed" },
  replay: { staff: "replayed", tenant: "restarted" },
  retry: { staff: "retried", tenant: "retried" },
};

export type RenderJob = { queue: string; state: JobState };
export type Rendered = { chip: string; summary: string; next: string | null };

export function render(ex: Explanation, job: RenderJob, opts: { audience: Audience; timeZone?: string }): Rendered {
  const w = new Words(opts.audience, opts.timeZone ?? "UTC", job.queue);
  const chip = CAUSE_CHIPS[ex.cause][opts.audience];
  if (ex.cause === "none") return { chip, summary: "It was submitted a moment ago: no time has passed yet.", next: null };
  const lead = ex.lead !== null ? ex.claims[ex.lead]! : null;
  const out: string[] = [];
  out.push(leadSentence(ex, lead, job, w));
  const breakdown = breakdownSentence(ex, w);
  if (breakdown) out.push(breakdown);
  for (const c of ex.claims) {
    if (c === lead) continue;
    const s = supporting(ex, c, lead, w);
    if (s) out.push(s);
  }
  const beyond = beyondSentence(ex, lead, w);
  if (beyond) out.push(beyond);
  if (ex.isOngoing) out.push(`It is still ${ongoing(job.state, ex, w)}.`);
  if (ex.isTruncated) out.push("Only its newest events were loaded, so its earliest time is missing.");
  return { chip, summary: out.join(" "), next: nextStep(ex, job, w) };
}

function leadSentence(ex: Explanation, lead: Claim | null, job: RenderJob, w: Words): string {
  const of = `${d(ex.totalMs)}${ex.isOngoing ? " so far" : ""}`;
  // A part that rounds to the whole is said by what it leaves out: "all but 36s of its 10h 30m".
  const part = (ms: number) => (roundsToWhole(ms, ex.totalMs) ? `all but ${d(ex.totalMs - ms)}` : d(ms));
  switch (ex.cause) {
    case "failed":
      return failedLead(claimsOf(ex.claims, "failures")[0] ?? null, ex, w);
    case "gave_up": {
      const c = lead as ClaimOf<"decision">;
      const left = c.maxAttempts - c.attempt;
      const failures = claimsOf(ex.claims, "failures")[0];
      const before = failures && failures.failed > 0 ? ` Before that, ${failuresWords(failures, w)}.` : "";
      return `It was given up by ${w.who(c.by)} at ${w.clock(c.at)} while it was ${w.stateWords(c.from)}, with ${left} of ${c.maxAttempts} ${w.tries(c.maxAttempts)} left.${before}`;
    }
    case "cancelled": {
      const c = lead as ClaimOf<"decision">;
      return `It was cancelled by ${w.who(c.by)} at ${w.clock(c.at)} while it was ${w.stateWords(c.from)}${job.state === "cancelling" ? "; it stops at its next checkpoint" : ""}.`;
    }
    case "poison": {
      const c = lead as ClaimOf<"crashed_workers">;
      return w.tenant
        ? `It stopped the machine running it ${times(c.crashes)}, so it was stopped and is not tried again on its own.`
        : `It crashed the worker process running it ${times(c.crashes)} (it was the job blamed each time), so it was stopped as a poison job and is not handed out again${tookDown(c, w)}.`;
    }
    case "crashed_workers": {
      const c = lead as ClaimOf<"crashed_workers">;
      return w.tenant
        ? `The machine running it stopped ${times(c.crashes)} while it ran, and each time the work started again.`
        : `Its worker process died ${times(c.crashes)} while running it, each time a crash blamed on this job${tookDown(c, w)}.`;
    }
    case "lost_attempt": {
      const lost = claimsOf(ex.claims, "lost_attempt");
      const c = lead as ClaimOf<"lost_attempt">;
      const wasted = lost.reduce((s, l) => s + lossCost(l), 0);
      const head =
        lost.length === 1
          ? w.tenant
            ? `Slow because a try was interrupted and had to start again: ${part(wasted)} of its ${of}.`
            : `Slow because work was lost with a worker that went silent: ${part(wasted)} of its ${of}.`
          : w.tenant
            ? `Slow because ${lost.length} tries were interrupted and had to start again: ${part(wasted)} of its ${of}.`
            : `Slow because ${lost.length} attempts were lost with workers that went silent: ${part(wasted)} of its ${of}.`;
      // Every loss in the order it happened (the first three; the rest counted), not the lead first.
      const inOrder = [...lost].sort((a, b) => a.attempt - b.attempt);
      const told = inOrder.slice(0, 3).map((l) => lostWords(l, w));
      if (inOrder.length > 3) told.push(`${inOrder.length - 3} more ${w.tenant ? "tries were" : "attempts were"} lost the same way.`);
      return `${head} ${(lost.length === 1 ? [lostWords(c, w)] : told).join(" ")}`;
    }
    case "slow_run": {
      const c = lead as ClaimOf<"compare">;
      const current = ex.isOngoing && job.state === "running";
      return w.tenant
        ? `Slow because the work itself ${current ? "has taken" : "took"} ${d(c.value)}${current ? " so far" : ""} this time: ${w.usually(c)}.`
        : `Slow because its ${current ? "current run has taken" : "run took"} ${d(c.value)}${current ? " so far" : ""}, more than the p95 of ${w.scope(c.scope)} (${d(c.p95)}; median ${d(c.p50)}).`;
    }
    case "queue_paused":
      return `Slow because ${pausedWords(lead as ClaimOf<"queue_paused">, w)} while it waited: ${part((lead as ClaimOf<"queue_paused">).waitedMs)} of its ${of}.`;
    case "queue_limit":
      return `Slow because ${limitWords(lead as ClaimOf<"queue_limit">, w)} while it waited: ${part((lead as ClaimOf<"queue_limit">).waitedMs)} of its ${of}.`;
    case "no_worker":
      return `Slow because ${noWorkerWords(lead as ClaimOf<"no_worker">, w)} while it waited: ${part((lead as ClaimOf<"no_worker">).waitedMs)} of its ${of}.`;
    case "jobs_ahead": {
      const busy = lead as ClaimOf<"busy">;
      const why = turnWords(ex, w);
      return `Slow because it waited ${w.tenant ? "its turn" : "its turn in the queue"} for ${part(busy.ms)} of its ${of}${why ? `: ${why}` : ""}.`;
    }
    case "retry_backoff": {
      const f = claimsOf(ex.claims, "failures")[0];
      return `Slow because of ${w.tenant ? "waiting to retry" : "retry backoff"}${f && f.failed > 0 ? ` after ${failuresWords(f, w, true)}` : ""}: ${part(ex.phases.retry_backoff)} of its ${of}.`;
    }
    case "scheduled": {
      const c = lead as ClaimOf<"scheduled">;
      return roundsToWhole(c.ms, ex.totalMs)
        ? `All but ${d(ex.totalMs - c.ms)} of its ${of} was the delay it was scheduled with, until ${w.clock(c.until)}.`
        : `Most of its ${of} was the delay it was scheduled with: ${d(c.ms)}, until ${w.clock(c.until)}.`;
    }
    case "paused": {
      const pause = lead?.kind === "decision" ? lead : null;
      const by = pause ? ` by ${w.who(pause.by)} at ${w.clock(pause.at)}` : "";
      return `Slow because it was paused${by}: ${part(ex.phases.paused)} of its ${of}.`;
    }
    case "dead": {
      const replay = lead?.kind === "decision" ? lead : null;
      const died = replay ? diedWords(replay, w) : "";
      return replay
        ? `Slow because it stayed ${w.tenant ? "stopped" : "dead"} for ${part(ex.phases.dead)} of its ${of}, until ${w.who(replay.by)} ${w.tenant ? "restarted" : "replayed"} it at ${w.clock(replay.at)}.${died}`
        : `Slow because it stayed ${w.tenant ? "stopped" : "dead"} for ${part(ex.phases.dead)} of its ${of}.`;
    }
    case "claimed":
      return w.tenant
        ? `Slow because it took ${part(ex.phases.claimed)} of its ${of} to start once it was picked up.`
        : `Slow because it was claimed by a worker that did not start it for ${part(ex.phases.claimed)} of its ${of}.`;
    case "running":
      return roundsToWhole(ex.phases.running, ex.totalMs)
        ? `All but ${d(ex.totalMs - ex.phases.running)} of its ${of} was ${w.tenant ? "the work itself" : "running"}.`
        : `Most of its ${of} was ${w.tenant ? "the work itself" : "running"}: ${d(ex.phases.running)}.`;
    case "nothing_unusual": {
      const c = lead?.kind === "compare" ? lead : null;
      const usual = c
        ? w.tenant
          ? `, about as long as ${w.scope(c.scope)} usually take (${w.usually(c)})`
          : `, within the usual for ${w.scope(c.scope)} (median ${d(c.p50)}, p95 ${d(c.p95)})`
        : "";
      return `Nothing unusual: it took ${of}${usual}.`;
    }
    case "none":
      return "It was submitted a moment ago.";
  }
}

/** Of its total, the largest phases: the bar's words. */
function breakdownSentence(ex: Explanation, w: Words): string | null {
  const parts = claimsOf(ex.claims, "phase")
    .filter((c) => c.ms >= NAMED_FLOOR_MS || ex.totalMs < NAMED_FLOOR_MS)
    .sort((a, b) => b.ms - a.ms)
    .slice(0, 4);
  if (parts.length < 2) return null;
  return `Of its ${d(ex.totalMs)}${ex.isOngoing ? " so far" : ""}: ${parts.map((c) => `${d(c.ms)} ${w.labels[c.phase]}`).join(", ")}.`;
}

/** Another claim worth a sentence beside the lead, or null. */
function supporting(ex: Explanation, c: Claim, lead: Claim | null, w: Words): string | null {
  switch (c.kind) {
    case "failures":
      if (ex.cause === "failed" || ex.cause === "gave_up" || ex.cause === "retry_backoff" || c.failed === 0) return null;
      return `${capital(failuresWords(c, w))}.`;
    case "lost_attempt": {
      // A crash blamed on the job says it all in the lead, and a lost attempt as the lead tells every loss;
      // otherwise the first three losses are told, the rest counted.
      if (lead?.kind === "lost_attempt" || ex.cause === "poison" || ex.cause === "crashed_workers") return null;
      const lost = claimsOf(ex.claims, "lost_attempt");
      const i = lost.indexOf(c);
      if (i < 3) return lostWords(c, w);
      return i === 3 ? `${lost.length - 3} more ${w.tenant ? "tries were" : "attempts were"} lost the same way.` : null;
    }
    case "crashed_workers":
      if (lead === c) return null;
      return w.tenant
        ? `The machine running it stopped ${times(c.crashes)} while it ran.`
        : `It was blamed for ${c.crashes === 1 ? "the crash" : `${c.crashes} crashes`} of the worker running it${tookDown(c, w)}.`;
    case "queue_paused":
      return c.waitedMs >= NAMED_FLOOR_MS ? `${capital(pausedWords(c, w))} while it waited (${d(c.waitedMs)}).` : null;
    case "queue_limit":
      return c.waitedMs >= NAMED_FLOOR_MS ? `${capital(limitWords(c, w))} while it waited (${d(c.waitedMs)}).` : null;
    case "no_worker":
      return c.waitedMs >= NAMED_FLOOR_MS ? `${capital(noWorkerWords(c, w))} while it waited (${d(c.waitedMs)}).` : null;
    case "busy": {
      if (ex.cause === "jobs_ahead" || c.ms < NAMED_FLOOR_MS || c.ms < MINOR_SHARE * ex.totalMs) return null;
      const why = turnWords(ex, w);
      return `It waited its turn for ${d(c.ms)}${why ? `: ${why}` : ""}.`;
    }
    case "decision":
      if (lead === c || c.event === "cancel" || c.event === "abandon") return null;
      return `It was ${DECISION_VERBS[c.event]?.[w.audience] ?? c.event} by ${w.who(c.by)} at ${w.clock(c.at)}.`;
    case "large_input":
      return w.tenant
        ? `Its input was larger than usual: ${c.param} ${c.value.toLocaleString("en-US")} (95 of 100 of ${w.scope(c.scope)} had at most ${c.p95.toLocaleString("en-US")}).`
        : `Its input was larger than usual: ${c.param} ${c.value.toLocaleString("en-US")}, beyond the p95 of ${w.scope(c.scope)} (${c.p95.toLocaleString("en-US")}).`;
    default:
      return null;
  }
}

/** The comparisons beyond their p95 that the lead did not already state. */
function beyondSentence(ex: Explanation, lead: Claim | null, w: Words): string | null {
  const beyond = claimsOf(ex.claims, "compare").filter((c) => c.above && c !== lead);
  if (beyond.length === 0) return null;
  const name = { total: "in total", run: "its run", wait: "its first wait" } as const;
  const scope = w.scope(beyond[0]!.scope);
  const list = beyond.map((c) =>
    w.tenant ? `${name[c.metric]} ${d(c.value)} (usually within ${d(c.p95)})` : `${name[c.metric]} ${d(c.value)} (p95 ${d(c.p95)})`,
  );
  return `Longer than usual for ${scope}: ${list.join(", ")}.`;
}

function failedLead(f: ClaimOf<"failures"> | null, ex: Explanation, w: Words): string {
  if (!f || !f.last) return "It ended dead without a recorded error.";
  const last = f.last;
  const error = last.errorClass ? `${last.errorClass}${last.errorMessage ? `: ${last.errorMessage}` : ""}` : "no error was recorded";
  const outOf = `${last.attempt} of ${f.maxAttempts}`;
  if (f.failed === 0) return `It was given up after ${f.attempts} ${w.tries(f.attempts)}; the last ended with ${error}.`;
  const head = `It failed ${times(f.failed)} (${byClass(f, w)})`;
  if (last.outcome === "lease_expired") {
    return `${head}, and its last ${w.tenant ? "try" : "attempt"} (${outOf}) was lost when ${w.tenant ? "the machine running it stopped responding" : "its worker went silent"}, with no ${w.tenant ? "try" : "attempt"} left.`;
  }
  if (last.attempt >= f.maxAttempts)
    return `${head}; its ${w.tenant ? "tries" : "attempts"} ran out (${outOf}), so it was given up. The last ended with ${error}.`;
  return `${head}; the last (${w.tenant ? "try" : "attempt"} ${outOf}) ended with an error that a retry cannot fix, so it was not retried: ${error}.`;
}

function failuresWords(f: ClaimOf<"failures">, w: Words, short = false): string {
  if (short) {
    const [only] = f.byClass;
    return f.byClass.length === 1 && only
      ? `${f.failed} ${humanizeError(only.errorClass, only.n)}`
      : `${f.failed} failed ${w.tries(f.failed)} (${byClass(f, w)})`;
  }
  return `${f.failed} ${w.tenant ? (f.failed === 1 ? "try" : "tries") : f.failed === 1 ? "attempt" : "attempts"} failed (${byClass(f, w)})`;
}

function byClass(f: ClaimOf<"failures">, w: Words): string {
  void w;
  return f.byClass.map((c) => (f.byClass.length === 1 ? humanizeError(c.errorClass, c.n) : `${c.n}× ${c.errorClass}`)).join(", ");
}

function lostWords(c: ClaimOf<"lost_attempt">, w: Words): string {
  const silent = c.silentAt !== null ? ` at ${w.clock(c.silentAt)}` : "";
  const held =
    c.heldMs >= NAMED_FLOOR_MS
      ? w.tenant
        ? ` It was then held back ${d(c.heldMs)} before trying again.`
        : ` It was then held back ${d(c.heldMs)}: the backoff of a job blamed for its worker's crash.`
      : "";
  const again =
    held + (c.requeueMs >= NAMED_FLOOR_MS ? ` It then waited ${d(c.requeueMs)} to be ${w.tenant ? "picked up again" : "handed out again"}.` : "");
  const refund = c.refunded
    ? w.tenant
      ? " This did not count against its tries."
      : " The attempt was refunded: it does not count against its attempts."
    : "";
  if (w.tenant) {
    const what = c.neverStarted
      ? "never began: the machine that picked it up stopped responding"
      : "was interrupted when the machine running it stopped responding";
    return `${capital(w.attempt(c.attempt))} ${what}${silent}${c.neverStarted ? "" : `; ${d(c.lostMs)} of work was lost`}.${refund}${again}`;
  }
  const died = c.blamedOn
    ? `worker ${c.worker} died${silent} in a crash blamed on job ${c.blamedOn.jobId} (${c.blamedOn.type})`
    : `worker ${c.worker} went silent${silent}${c.silentAt !== null ? " (its last heartbeat)" : ""}`;
  return c.neverStarted
    ? `Attempt ${c.attempt} was claimed but never started: ${died}.${refund}${again}`
    : `Attempt ${c.attempt} was lost when ${died}; its ${d(c.lostMs)} of work were thrown away.${refund}${again}`;
}

function pausedWords(c: ClaimOf<"queue_paused">, w: Words): string {
  const by = c.by ? ` by ${w.who(c.by)}` : "";
  const when = c.to === null ? `since ${w.clock(c.from)}, and is still paused` : w.span(c.from, c.to);
  return w.tenant ? `processing of jobs like it was paused${by} ${when}` : `queue ${c.queue} was paused${by} ${when}`;
}

function limitWords(c: ClaimOf<"queue_limit">, w: Words): string {
  const when = c.to === null ? `since ${w.clock(c.from)}, and still is` : w.span(c.from, c.to);
  return w.tenant
    ? `jobs like it were running at the most allowed at once (${c.limit}) ${when}`
    : `queue ${c.queue} was at its concurrency limit (${c.limit} at work at once) ${when}`;
}

function noWorkerWords(c: ClaimOf<"no_worker">, w: Words): string {
  return w.tenant
    ? `nothing was available to run jobs like it ${w.span(c.from, c.to)}`
    : `no worker was serving queue ${c.queue} ${w.span(c.from, c.to)} (no job of it was claimed then)`;
}

/** Why its turn took as long as it did: the jobs ahead of it at submit, and the later ones claimed first. */
function turnWords(ex: Explanation, w: Words): string | null {
  const ahead = claimsOf(ex.claims, "ahead")[0];
  const skipped = claimsOf(ex.claims, "skipped")[0];
  const parts: string[] = [];
  if (ahead) {
    const n = `${ahead.capped ? "at least " : ""}${ahead.n.toLocaleString("en-US")}`;
    if (ahead.n === 0)
      parts.push(w.tenant ? "no job was waiting ahead of it when it was submitted" : `no job of queue ${w.queue} was waiting ahead of it at submit`);
    else {
      const own = !w.tenant && ahead.own !== null ? ` (${ahead.own.toLocaleString("en-US")} of them its tenant's)` : "";
      parts.push(`${n} ${ahead.n === 1 ? "job was" : "jobs were"} waiting ahead of it when it was submitted${own}`);
    }
  }
  if (skipped && skipped.n > 0) {
    const n = `${skipped.capped ? "at least " : ""}${skipped.n.toLocaleString("en-US")}`;
    const why: string[] = [];
    if (skipped.morePriority > 0) why.push(`${skipped.morePriority.toLocaleString("en-US")} more urgent`);
    if (!w.tenant && skipped.otherTenants !== null && skipped.otherTenants > 0)
      why.push(`${skipped.otherTenants.toLocaleString("en-US")} other tenants' taking their turn on a fair queue`);
    parts.push(`${n} submitted after it ${skipped.n === 1 ? "was" : "were"} started first${why.length ? ` (${why.join(", ")})` : ""}`);
  }
  return parts.length ? parts.join("; ") : null;
}

/** How a replayed job had ended: a person's give-up or cancel (and the attempt before it), else its last attempt's end. */
function diedWords(c: ClaimOf<"decision">, w: Words): string {
  const after = c.ended ? endedWords(c.ended, w) : null;
  const by = c.endedBy;
  if (by && (by.event === "abandon" || by.event === "cancel")) {
    const how = by.event === "cancel" ? "cancelled" : w.tenant ? "stopped" : "given up";
    return ` It had been ${how} by ${w.who(by.by)} at ${w.clock(by.at)} while it was ${w.stateWords(by.from)}${after ? `, ${after}` : ""}.`;
  }
  return after ? ` It had ${w.tenant ? "stopped" : "died"} ${after}.` : "";
}

/** How the attempt before a replay ended. */
function endedWords(e: NonNullable<ClaimOf<"decision">["ended"]>, w: Words): string {
  const error = e.errorClass ? `${e.errorClass}${e.errorMessage ? `: ${e.errorMessage}` : ""}` : null;
  switch (e.outcome) {
    case "lease_expired":
      return w.tenant ? "when the machine running it stopped responding" : `when its worker went silent${error ? ` (${error})` : ""}`;
    case "failed":
      return `after ${w.attempt(e.attempt)} failed${error ? ` with ${error}` : ""}`;
    default:
      return `after ${w.attempt(e.attempt)} ended ${e.outcome.replace("_", " ")}`;
  }
}

function tookDown(c: ClaimOf<"crashed_workers">, w: Words): string {
  if (w.tenant || !c.tookDown) return "";
  return `; those crashes took ${c.tookDown} other ${c.tookDown === 1 ? "job" : "jobs"} down with it, handed back without losing an attempt`;
}

function nextStep(ex: Explanation, job: RenderJob, w: Words): string | null {
  if (job.state !== "dead") return null;
  if (w.tenant) return "Contact support with this job's id to have it run again, or submit it again once the cause is fixed.";
  if (ex.cause === "poison") return "Look at its params and its handler before anyone replays it: it takes its worker process down.";
  const lost = claimsOf(ex.claims, "lost_attempt").filter((l) => !l.blamedOn);
  if (lost.length >= 2) return `Its workers went silent on it ${times(lost.length)}: look at its params before an operator replays it.`;
  if (ex.cause === "gave_up") return "An operator can replay it if it should run after all.";
  return "An operator can replay it once the cause is fixed.";
}

/** What a job not finished is doing now ("It is still …"), by its state. */
const ONGOING: Partial<Record<JobState, Record<Audience, string>>> = {
  queued: { staff: "waiting in the queue", tenant: "waiting its turn" },
  claimed: { staff: "claimed, not yet started", tenant: "starting" },
  running: { staff: "running", tenant: "running" },
  paused: { staff: "paused", tenant: "paused" },
  cancelling: { staff: "being cancelled", tenant: "being cancelled" },
  retry_wait: { staff: "backing off before its next attempt", tenant: "waiting to retry" },
};

function ongoing(state: JobState, ex: Explanation, w: Words): string {
  const paused = state === "queued" && claimsOf(ex.claims, "queue_paused").some((c) => c.to === null);
  if (paused) return w.tenant ? "waiting: processing of jobs like it is paused" : `waiting: queue ${w.queue} is paused`;
  return ONGOING[state]?.[w.audience] ?? "running";
}

/** The sentence's vocabulary for one audience and time zone. */
class Words {
  readonly labels: Record<Phase, string>;
  constructor(
    readonly audience: Audience,
    readonly timeZone: string,
    readonly queue: string,
  ) {
    this.labels = PHASE_LABELS[audience];
  }
  get tenant() {
    return this.audience === "tenant";
  }
  /** "08:04 UTC", "09:04 GMT+1": the viewer's wall clock, with its zone. */
  clock(ms: number): string {
    return `${formatClock(new Date(ms), this.timeZone).slice(0, 5)} ${zoneLabel(new Date(ms), this.timeZone)}`;
  }
  /** A stretch of time; to the second when it is short, so that its two ends are not the same minute. */
  span(from: number, to: number): string {
    const n = to - from < 10 * 60_000 ? 8 : 5;
    const at = (ms: number) => formatClock(new Date(ms), this.timeZone).slice(0, n);
    return `from ${at(from)} to ${at(to)} ${zoneLabel(new Date(to), this.timeZone)}`;
  }
  /** Who did something: staff see the person; a tenant sees their own colleagues, and only a role for staff. */
  who(by: Who): string {
    if (!this.tenant) {
      switch (by.kind) {
        case "operator":
          return `${by.id} (operator)`;
        case "tenant":
          return `${by.id} (the customer)`;
        case "api":
          return `the API (${by.id})`;
        case "supervisor":
          return `the supervisor (${by.id})`;
        case "worker":
          return `worker ${by.id}`;
      }
    }
    switch (by.kind) {
      case "operator":
        return "an operator";
      case "tenant":
        return by.id ? `someone on your account (${by.id})` : "someone on your account";
      case "api":
        return by.id ? `a request through the API (${by.id})` : "a request through the API";
      default:
        return "the system";
    }
  }
  attempt(n: number): string {
    return this.tenant ? `its ${ordinal(n)} try` : `attempt ${n}`;
  }
  tries(n: number): string {
    return this.tenant ? (n === 1 ? "try" : "tries") : n === 1 ? "attempt" : "attempts";
  }
  stateWords(s: JobState): string {
    const staff: Partial<Record<JobState, string>> = {
      retry_wait: "waiting to retry",
      queued: "waiting in the queue",
      claimed: "claimed, not yet started",
    };
    const tenant: Partial<Record<JobState, string>> = { retry_wait: "waiting to retry", queued: "waiting its turn", claimed: "starting" };
    return (this.tenant ? tenant : staff)[s] ?? s;
  }
  scope(s: BaselineScope): string {
    const days = Math.round((s.to - s.from) / 86_400_000);
    const window = ` that succeeded in the ${days === 1 ? "day" : `${days} days`} before it was submitted`;
    if (this.tenant) return `your ${s.type} jobs${window}`;
    return s.tenantId ? `${s.tenantId}'s ${s.type} jobs${window}` : `${s.type} jobs of every tenant${window}`;
  }
  usually(c: { p50: number; p95: number }): string {
    return `typically ${d(c.p50)}, 95 of 100 within ${d(c.p95)}`;
  }
}

const d = formatDuration;
/** A part of a total that is not all of it but reads as all of it once both are rounded ("39s of its 39s"). */
const roundsToWhole = (ms: number, totalMs: number) => totalMs - ms >= 1 && d(ms) === d(totalMs);
const capital = (s: string) => (s ? s[0]!.toUpperCase() + s.slice(1) : s);
const times = (n: number) => (n === 1 ? "once" : n === 2 ? "twice" : `${n} times`);
function ordinal(n: number): string {
  const words = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"];
  return words[n - 1] ?? `${n}th`;
}

/** "UpstreamTimeout" → "upstream timeouts"; an already spaced class is kept as it is. */
export function humanizeError(cls: string, n: number): string {
  const words = /\s/.test(cls)
    ? cls
    : cls
        .replace(/Error$/, " error")
        .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
        .toLowerCase()
        .trim();
  if (n === 1) return words;
  return /(s|x|ch|sh)$/.test(words) ? `${words}es` : `${words}s`;
}

/** A transition as a tenant reads it in the job's history: keyed by JobEvent, so a new event must say its words. */
const TENANT_EVENTS: Record<JobEvent, string> = {
  submit: "submitted",
  claim: "picked up",
  start: "started",
  reclaim: "interrupted: the machine running it stopped responding",
  rescue: "interrupted by another job's crash; tried again without using a try",
  cancel: "cancelled",
  abandon: "stopped",
  finish: "finished",
  fail: "failed; it will be retried",
  pause: "paused",
  resume: "resumed",
  stop: "stopped at a safe point, as asked",
  retry: "queued to try again",
  replay: "restarted",
  release: "handed back before it started, without using a try",
};

/** What happened, in a tenant's words; the state it reached decides between words where an event can end two ways. */
export function tenantEventWords(e: { event: JobEvent; toState: JobState }): string {
  if (e.event === "cancel" && e.toState === "cancelling") return "cancellation asked: it stops at its next safe point";
  if (e.toState === "cancelled" && e.event !== "cancel") return "cancelled";
  return TENANT_EVENTS[e.event];
}

/** Who did it, as a tenant may read it: their own people and keys by name, Jobscope's people and machinery by role. */
export function tenantWho(kind: ActorKind, id: string): string {
  if (kind === "tenant") return id || "someone on your account";
  if (kind === "api") return id ? `your API key (${id})` : "your API key";
  if (kind === "operator") return "support";
  return "the system";
}
