"use client";

import { None } from "@/components/cells";
import { DataTable } from "@/components/data-table";
import { LocalTime, useTimeZone } from "@/components/time-zone";
import { formatDateTime, formatDuration } from "@/lib/time-format";
import { OutcomeLabel } from "@/components/timeline/tones";
import { RUN_OUTCOMES, type RunOutcome } from "@/lib/fsm/table";
import type { RunRecord } from "@/lib/jobs/queries";
import { ExpandableText } from "./expandable-text";
import { Card } from "@/components/charts/card";

const isRunOutcome = (s: string | null): s is RunOutcome => s !== null && (RUN_OUTCOMES as readonly string[]).includes(s);

/** 11-29 13:01:03 GMT+1 (the viewer's zone), with the full UTC time as a tooltip. */
export function ShortTime({ at }: { at: Date | null }) {
  const tz = useTimeZone();
  if (!at) return <None />;
  return (
    <LocalTime at={at} className="whitespace-nowrap tabular-nums">
      {formatDateTime(at, tz).slice(5)}
    </LocalTime>
  );
}

/** One row per attempt: who ran it, when, how it ended and the full error. A tenant reads them as its tries. */
export function RunRecords({ runs, maxAttempts, now, tenant = false }: { runs: RunRecord[]; maxAttempts: number; now: number; tenant?: boolean }) {
  const word = tenant ? "try" : "attempt";
  return (
    <Card title={tenant ? "Tries" : "Run records"} id="runs" aside={`${runs.length} of ${maxAttempts} ${word === "try" ? "tries" : "attempts"} used`}>
      {runs.length === 0 ? (
        <p className="text-sm text-neutral-600">{tenant ? "No try yet: it has not started." : "No attempt yet: no worker has claimed the job."}</p>
      ) : (
        <DataTable
          caption={`${tenant ? "Tries" : "Run records, one per attempt"}; times in your time zone`}
          rows={runs}
          rowKey={(r) => String(r.attempt)}
          rowLabel={(r) => `${tenant ? "Try" : "Attempt"} ${r.attempt}`}
          columns={[
            { header: tenant ? "Try" : "Attempt", isRowHeader: true, className: "font-semibold tabular-nums", cell: (r) => r.attempt },
            // A tenant's copy has no worker ids (lib/jobs/redact.ts): no column then.
            ...(runs.some((r) => r.workerId)
              ? [{ header: "Worker", className: "font-mono whitespace-nowrap", cell: (r: RunRecord) => r.workerId }]
              : []),
            { header: tenant ? "Picked up" : "Claimed", cell: (r) => <ShortTime at={r.claimedAt} /> },
            { header: "Started", cell: (r) => <ShortTime at={r.startedAt} /> },
            { header: "Finished", cell: (r) => <ShortTime at={r.finishedAt} /> },
            {
              header: "Ran for",
              className: "whitespace-nowrap tabular-nums",
              cell: (r) => (
                <>
                  {formatDuration((r.finishedAt?.getTime() ?? now) - (r.startedAt ?? r.claimedAt).getTime())}
                  {!r.finishedAt && <span className="text-neutral-600"> so far</span>}
                </>
              ),
            },
            { header: "Outcome", cell: (r) => <OutcomeLabel outcome={isRunOutcome(r.outcome) ? r.outcome : "open"} tenant={tenant} /> },
            {
              header: "Error",
              className: "w-1/2 min-w-64",
              cell: (r) => (
                <>
                  {r.errorClass && <p className="font-mono text-xs font-semibold text-red-800">{r.errorClass}</p>}
                  {r.errorMessage && <ExpandableText text={r.errorMessage} label={`${word} ${r.attempt}'s error`} />}
                  {r.errorStack && <StackTrace stack={r.errorStack} attempt={r.attempt} />}
                  {!r.errorClass && !r.errorMessage && <None />}
                </>
              ),
            },
          ]}
        />
      )}
    </Card>
  );
}

/** A failed attempt's stack (staff only: a tenant's copy has none), folded until asked for. */
function StackTrace({ stack, attempt }: { stack: string; attempt: number }) {
  const frames = stack.split("\n").filter((l) => /^\s+at /.test(l)).length;
  return (
    <details className="mt-1 text-xs">
      <summary className="cursor-pointer font-medium text-blue-700 underline" aria-label={`Stack trace of attempt ${attempt}`}>
        Stack trace ({frames} {frames === 1 ? "frame" : "frames"})
      </summary>
      {/* Wrapped within the column, each frame a line; V8's indentation before "at" dropped. */}
      <pre className="mt-1 max-h-72 overflow-y-auto rounded-md border border-neutral-200 bg-neutral-50 p-2 font-mono text-[11px] leading-snug break-all whitespace-pre-wrap text-neutral-800">
        {stack.replace(/^\s+at /gm, "at ")}
      </pre>
    </details>
  );
}
