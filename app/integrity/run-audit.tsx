"use client";

import Link from "next/link";
import { useState, useTransition } from "react";
import { runIntegrityAuditAction, type AuditActionResult } from "./actions";

const WINDOWS = [
  { window: "incremental", label: "Since the last audit" },
  { window: "24h", label: "Last 24 hours" },
  { window: "all", label: "Every job" },
] as const;

export function RunAudit() {
  const [result, setResult] = useState<AuditActionResult | null>(null);
  const [pending, start] = useTransition();
  return (
    <section aria-label="Run an audit" className="space-y-3">
      <div role="group" aria-label="Audit window" className="flex flex-wrap gap-2">
        {WINDOWS.map((w) => (
          <button
            key={w.window}
            type="button"
            disabled={pending}
            onClick={() => start(async () => setResult(await runIntegrityAuditAction({ window: w.window })))}
            className="rounded-md border border-neutral-300 bg-white px-3 py-1.5 text-sm font-medium hover:bg-neutral-100 disabled:opacity-50"
          >
            {w.label}
          </button>
        ))}
      </div>
      <div role="status" aria-live="polite" aria-label="Audit outcome" className="min-h-5 text-sm">
        {pending && "Replaying events…"}
        {!pending && result?.ok === false && <span className="text-red-700">{result.error.message}</span>}
        {!pending && result?.ok && (
          <div className="space-y-2">
            <p className={result.mismatches.length ? "font-semibold text-red-700" : "text-emerald-700"}>
              Audit #{result.id}: {result.jobsChecked} jobs and {result.eventsReplayed} events replayed in {result.durationMs} ms;{" "}
              {result.mismatches.length === 0 ? "every job matches its history." : `${result.mismatches.length} mismatches.`}
            </p>
            {result.mismatches.length > 0 && (
              <ul className="list-disc pl-5">
                {result.mismatches.map((m, i) => (
                  <li key={`${m.jobId}-${i}`}>
                    <Link href={`/jobs/${m.jobId}`} className="font-mono underline">
                      {m.jobId}
                    </Link>
                    : {m.problem}
                  </li>
                ))}
              </ul>
            )}
          </div>
        )}
      </div>
    </section>
  );
}
