import type { Metadata } from "next";
import Link from "next/link";
import { Suspense } from "react";
import { PageLoading } from "@/components/page-loading";
import { numbers } from "@/components/numbers";
import { PageHeader } from "@/components/page-header";
import { PageTable } from "@/components/page-table";
import { requirePage, withViewerRead, type Viewer } from "@/lib/auth/viewer";
import { JOB_TYPES } from "@/lib/jobs/job-types";
import { formatDuration } from "@/lib/time-format";
import { HISTORY_RANGES, MIN_SAMPLE, parseHistoryRange, type HistoryRange, type TypeSummary } from "@/lib/metrics/history";
import { typeSummaries } from "@/lib/metrics/type-history";
import type { SearchParamsProps } from "@/lib/frame/page";
import { RangeLinks } from "./range-links";

export const metadata: Metadata = { title: "Job types" };
export const dynamic = "force-dynamic";

const ms = (v: number | null) => (v === null ? "—" : formatDuration(v));
const pct = (v: number | null) => (v === null ? "—" : `${(v * 100).toFixed(v < 0.1 ? 1 : 0)}%`);

/** Every job type with its attempts, failure rate and run time over a range; each opens its history charts. */
export default async function TypesPage({ searchParams }: SearchParamsProps) {
  const viewer = await requirePage("insight:read", "/types");
  const raw = (await searchParams).range;
  const range = parseHistoryRange(typeof raw === "string" ? raw : null);
  // Who may see it is decided before anything streams (a 404 keeps its status); the table streams in.
  return (
    <Suspense fallback={<PageLoading title="Job types" what="the job types' history" />}>
      <TypesWithData viewer={viewer} range={range} />
    </Suspense>
  );
}

async function TypesWithData({ viewer, range }: { viewer: Viewer; range: HistoryRange }) {
  // A failed read is the page's failure: app/error.tsx says why (the database, or the server) and retries.
  const active = await withViewerRead(viewer, (tx) => typeSummaries(tx, range));
  // Types that ran nothing in the range still get a row (and their page), after the busy ones.
  const idle = Object.keys(JOB_TYPES).filter((t) => !active.some((s) => s.type === t));
  const rows: TypeSummary[] = [...active, ...idle.map((type) => ({ type, attempts: 0, failureRate: null, runP50Ms: null, runP95Ms: null }))];
  return (
    <div className="space-y-6">
      <PageHeader
        title="Job types"
        description={`Attempts of each job type over the ${HISTORY_RANGES[range].label}, their failure rate and run time (from the metrics roll-up, up to a minute behind). Rates and percentiles are given on ${MIN_SAMPLE} attempts or more.`}
      >
        <RangeLinks base="/types" range={range} />
      </PageHeader>
      <PageTable
        caption={`Job types, ${HISTORY_RANGES[range].label}`}
        rows={rows}
        empty="No job type has run yet."
        rowKey={(r) => r.type}
        columns={[
          {
            header: "Type",
            isRowHeader: true,
            cell: (r) => (
              <Link
                href={`/types/${encodeURIComponent(r.type)}?range=${range}`}
                className="font-mono text-xs font-medium text-sky-700 hover:underline"
              >
                {r.type}
              </Link>
            ),
          },
          { header: "Attempts", align: "right", className: "tabular-nums", cell: (r) => numbers.format(r.attempts) },
          { header: "Failure rate", align: "right", className: "tabular-nums", cell: (r) => pct(r.failureRate) },
          { header: "Run time p50", align: "right", className: "tabular-nums", cell: (r) => ms(r.runP50Ms) },
          { header: "Run time p95", align: "right", className: "tabular-nums", cell: (r) => ms(r.runP95Ms) },
        ]}
      />
    </div>
  );
}
