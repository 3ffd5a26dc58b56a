"use client";

import Link from "next/link";
import { useState, useTransition, type FormEvent } from "react";
import { Field, INPUT } from "@/components/fields";
import { Options } from "@/components/options";
import { SubmitButton } from "@/components/submit-button";
import type { Result } from "@/lib/result";
import { runIntegrityCheckAction, type CheckRun } from "./actions";

const WINDOWS = [
  { window: "incremental", label: "Jobs with events since the last check" },
  { window: "24h", label: "Jobs with events in the last 24 hours" },
  { window: "all", label: "Every job (slow on a large history)" },
] as const;
type Window = (typeof WINDOWS)[number]["window"];

/** The problems a check found, each linking to its job. */
export function MismatchList({ mismatches }: { mismatches: { jobId: string; problem: string }[] }) {
  return (
    <ul className="list-disc pl-5 text-sm">
      {mismatches.map((m, i) => (
        <li key={`${m.jobId}-${i}`}>
          <Link href={`/jobs/${m.jobId}`} prefetch={false} className="font-mono underline">
            {m.jobId}
          </Link>
          : {m.problem}
        </li>
      ))}
    </ul>
  );
}

/**
 * Starting a check is an action, so it reads as one: choose which jobs, then
 * one "Run check" button (three buttons in a row looked like a filter of the list below).
 */
export function RunCheck() {
  const [result, setResult] = useState<Result<CheckRun> | null>(null);
  const [pending, start] = useTransition();
  function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const window = new FormData(e.currentTarget).get("window") as Window;
    start(async () => setResult(await runIntegrityCheckAction({ window })));
  }
  return (
    <section aria-labelledby="run-check-heading" className="space-y-3 rounded-lg border border-neutral-200 bg-white p-5 shadow-xs">
      <h2 id="run-check-heading" className="text-base font-semibold tracking-tight">
        Run a check now
      </h2>
      <form onSubmit={onSubmit} className="flex flex-wrap items-end gap-3">
        <div className="w-80 max-w-full">
          <Field id="check-window" label="Jobs">
            <select id="check-window" name="window" defaultValue="incremental" className={INPUT}>
              <Options of={WINDOWS} value={(w) => w.window} label={(w) => w.label} />
            </select>
          </Field>
        </div>
        <SubmitButton pending={pending} busy="Running…">
          Run check
        </SubmitButton>
      </form>
      <div role="status" aria-live="polite" aria-label="Check outcome" className="min-h-5 text-sm">
        {pending && "Rebuilding jobs from their events…"}
        {!pending && result?.ok === false && <span className="text-red-700">{result.error.message}</span>}
        {!pending && result?.ok && (
          <div className="space-y-2">
            <p className={result.data.mismatches.length ? "font-semibold text-red-700" : "text-emerald-700"}>
              Check #{result.data.id}: {result.data.jobsChecked} jobs and {result.data.eventsRebuilt} events rebuilt in {result.data.durationMs} ms;{" "}
              {result.data.mismatches.length === 0 ? "every job matches its history." : `${result.data.mismatches.length} mismatches.`}
            </p>
            {result.data.mismatches.length > 0 && <MismatchList mismatches={result.data.mismatches} />}
          </div>
        )}
      </div>
    </section>
  );
}
