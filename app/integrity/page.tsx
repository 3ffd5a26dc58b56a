import type { Metadata } from "next";
import { DataTable } from "@/components/data-table";
import { numbers } from "@/components/numbers";
import { LocalTime } from "@/components/time-zone";
import { requirePage, withViewer } from "@/lib/auth/viewer";
import { recentChecks } from "@/lib/integrity/check";
import { MismatchList, RunCheck } from "./run-check";

export const metadata: Metadata = { title: "Integrity check" };
export const dynamic = "force-dynamic";

/**
 * The integrity check for operators: every job rebuilt from its event log through the
 * state machine and compared with its row and its run records. Scheduled runs
 * (`npm run check:integrity` from cron) and runs started here are listed together.
 */
export default async function IntegrityPage() {
  const viewer = await requirePage("audit:read");
  // A failed read is the page's failure: app/error.tsx says why (the database, or the server) and retries.
  const checks = await withViewer(viewer, (tx) => recentChecks(tx, 20));
  const withMismatches = checks.find((a) => a.mismatches > 0);
  return (
    <div className="space-y-8">
      <header className="space-y-1">
        <h1 className="text-2xl font-semibold tracking-tight">Integrity check</h1>
        <p className="max-w-3xl text-sm text-neutral-600">
          Rebuilds each job from its events through the state machine and compares the result with the job&apos;s row (state, attempt, budget,
          version) and its run records (one per claim, closed once, with the outcome the log says). A mismatch means something wrote outside the write
          path. Incremental: each check reads only the jobs with events since the previous one.
        </p>
      </header>
      <RunCheck />
      {checks.length === 0 ? (
        <p className="text-sm text-neutral-600">
          No check has run yet. Schedule <code>npm run check:integrity</code>, or run one above.
        </p>
      ) : (
        <DataTable
          framed
          caption="Recent checks"
          rows={checks}
          rowKey={(a) => String(a.id)}
          columns={[
            { header: "#", isRowHeader: true, className: "font-mono", cell: (a) => a.id },
            { header: "Ran at", cell: (a) => <LocalTime at={a.at} className="whitespace-nowrap" /> },
            {
              header: "Window of job events",
              cell: (a) => (
                <>
                  {a.windowFrom.getTime() === 0 ? "the beginning" : <LocalTime at={a.windowFrom} />} → <LocalTime at={a.windowTo} />
                </>
              ),
            },
            { header: "Jobs", align: "right", className: "tabular-nums", cell: (a) => numbers.format(a.jobsChecked) },
            {
              header: "Mismatches",
              align: "right",
              className: "tabular-nums",
              cell: (a) => <span className={a.mismatches ? "font-semibold text-red-700" : ""}>{numbers.format(a.mismatches)}</span>,
            },
            { header: "Took", align: "right", className: "tabular-nums", cell: (a) => `${numbers.format(a.durationMs)} ms` },
            { header: "By", cell: (a) => a.actor },
          ]}
        />
      )}
      {withMismatches && (
        <section aria-label="Mismatches" className="space-y-2">
          <h2 className="text-lg font-semibold">Mismatches found by check #{withMismatches.id}</h2>
          <MismatchList mismatches={withMismatches.details} />
        </section>
      )}
    </div>
  );
}
