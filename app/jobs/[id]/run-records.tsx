"use client";

import { formatUtc } from "@/components/relative-time";
import { OutcomeLabel } from "@/components/timeline-chart";
import { RUN_OUTCOMES, type RunOutcome } from "@/lib/fsm/table";
import type { RunRecord } from "@/lib/jobs/queries";
import { formatDuration } from "@/lib/jobs/timeline";
import { ExpandableText } from "./expandable-text";
import { Section } from "./section";

const isRunOutcome = (s: string | null): s is RunOutcome => s !== null && (RUN_OUTCOMES as readonly string[]).includes(s);

/** 11-29 12:01:03, with the full UTC time as a tooltip. */
export function ShortTime({ at }: { at: Date | null }) {
  if (!at) return <span className="text-neutral-400">—</span>;
  const full = formatUtc(at);
  return (
    <time dateTime={at.toISOString()} title={full} className="whitespace-nowrap tabular-nums">
      {full.slice(5, 19)}
    </time>
  );
}

export const th = "px-3 py-2 text-left text-xs font-medium tracking-wide text-neutral-500 uppercase whitespace-nowrap";
export const td = "px-3 py-2.5 align-top";

/** One row per attempt: who ran it, when, how it ended and the full error. */
export function RunRecords({ runs, maxAttempts, now }: { runs: RunRecord[]; maxAttempts: number; now: number }) {
  return (
    <Section title="Run records" id="runs" aside={`${runs.length} of ${maxAttempts} attempts used`}>
      {runs.length === 0 ? (
        <p className="text-sm text-neutral-500">No attempt yet: no worker has claimed the job.</p>
      ) : (
        <div className="overflow-x-auto">
          <table className="w-full text-sm">
            <caption className="sr-only">Run records, one per attempt; times in UTC</caption>
            <thead className="border-b border-neutral-200">
              <tr>
                <th scope="col" className={th}>Attempt</th>
                <th scope="col" className={th}>Worker</th>
                <th scope="col" className={th}>Claimed</th>
                <th scope="col" className={th}>Started</th>
                <th scope="col" className={th}>Finished</th>
                <th scope="col" className={th}>Ran for</th>
                <th scope="col" className={th}>Outcome</th>
                <th scope="col" className={th}>Error</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-neutral-100">
              {runs.map((run) => {
                const from = run.startedAt ?? run.claimedAt;
                const ms = (run.finishedAt?.getTime() ?? now) - from.getTime();
                return (
                  <tr key={run.attempt} aria-label={`Attempt ${run.attempt}`}>
                    <th scope="row" className={`${td} text-left font-semibold tabular-nums`}>{run.attempt}</th>
                    <td className={`${td} font-mono whitespace-nowrap`}>{run.workerId}</td>
                    <td className={td}><ShortTime at={run.claimedAt} /></td>
                    <td className={td}><ShortTime at={run.startedAt} /></td>
                    <td className={td}><ShortTime at={run.finishedAt} /></td>
                    <td className={`${td} whitespace-nowrap tabular-nums`}>
                      {formatDuration(ms)}
                      {!run.finishedAt && <span className="text-neutral-500"> so far</span>}
                    </td>
                    <td className={td}>
                      <OutcomeLabel outcome={isRunOutcome(run.outcome) ? run.outcome : "open"} />
                    </td>
                    <td className={`${td} w-1/2 min-w-64`}>
                      {run.errorClass && <p className="font-mono text-xs font-semibold text-red-800">{run.errorClass}</p>}
                      {run.errorMessage && <ExpandableText text={run.errorMessage} label={`attempt ${run.attempt}'s error`} />}
                      {!run.errorClass && !run.errorMessage && <span className="text-neutral-400">—</span>}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </Section>
  );
}
