import type { Metadata } from "next";
import Link from "next/link";
import { Suspense } from "react";
import { PageLoading } from "@/components/page-loading";
import { RejectionKindBadge } from "@/components/charts/rejection-kind";
import type { Column } from "@/components/data-table";
import { PageTable } from "@/components/page-table";
import { Options } from "@/components/options";
import { ActorCell, ExpectedVsCurrent, JobLink } from "@/components/cells";
import { TimeAgo } from "@/components/time-zone";
import { requirePage, type Viewer, withViewerRead } from "@/lib/auth/viewer";
import { EVENTS, isJobEvent, REJECTION_KINDS, type RejectionKind } from "@/lib/fsm/table";
import { listRejections, type RejectionFilters, type RejectionPage } from "@/lib/insight/queries";
import type { SearchParams, SearchParamsProps } from "@/lib/frame/page";

export const metadata: Metadata = { title: "Rejections" };
export const dynamic = "force-dynamic";

const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v)?.trim() || undefined;

/** URL filters; unknown values are dropped rather than failing the page. */
function parseFilters(sp: SearchParams): RejectionFilters {
  const kind = one(sp.kind);
  const event = one(sp.event);
  return {
    kind: (REJECTION_KINDS as readonly string[]).includes(kind ?? "") ? (kind as RejectionKind) : undefined,
    event: isJobEvent(event) ? event : undefined,
    actor: one(sp.actor)?.slice(0, 200),
    job: one(sp.job)?.slice(0, 100),
    after: one(sp.after),
    limit: 50,
  };
}

function href(f: RejectionFilters, after?: string) {
  const p = new URLSearchParams();
  for (const k of ["kind", "event", "actor", "job"] as const) if (f[k]) p.set(k, f[k]!);
  if (after) p.set("after", after);
  const s = p.toString();
  return s ? `/rejections?${s}` : "/rejections";
}

const FILTER_SELECTS = [
  { name: "kind", label: "Kind", values: REJECTION_KINDS },
  { name: "event", label: "Event", values: EVENTS },
] as const;
const LABEL = "flex flex-col gap-1 text-xs font-medium text-neutral-600";
const INPUT = "rounded-md border border-neutral-300 bg-white px-2 py-1.5 text-sm shadow-xs";

const KIND_HELP: Record<RejectionKind, string> = {
  illegal: "the state machine does not allow that event from the job's state",
  conflict: "someone else moved the job first (a stale page, a late worker)",
  drift: "the version matched but the state did not: the row was written outside the write path",
};

type Row = RejectionPage["rows"][number];

function columns(now: number): Column<Row>[] {
  return [
    { header: "When", className: "text-xs whitespace-nowrap text-neutral-600", cell: (r) => <TimeAgo at={r.at} now={now} /> },
    { header: "Kind", cell: (r) => <RejectionKindBadge kind={r.kind} /> },
    { header: "Event", className: "font-mono text-xs", cell: (r) => r.event },
    { header: "Actor", className: "text-xs", cell: (r) => <ActorCell kind={r.actorKind} id={r.actorId} /> },
    {
      header: "Job",
      cell: (r) => (
        <>
          <JobLink id={r.jobId} />
          {r.tenantId && <div className="text-xs text-neutral-600">{r.tenantId}</div>}
        </>
      ),
    },
    { header: "Expected → current", className: "text-xs whitespace-nowrap", cell: (r) => <ExpectedVsCurrent r={r} /> },
    { header: "Reason", className: "max-w-md text-xs break-words text-neutral-700", cell: (r) => r.reason },
  ];
}

/**
 * The page of rejections and when it was read (relative times count from there). A failed read is
 * the page's failure: app/error.tsx says why (the database, or the server) and retries.
 */
async function load(viewer: Viewer, f: RejectionFilters): Promise<{ page: RejectionPage; now: number }> {
  return { page: await withViewerRead(viewer, (tx) => listRejections(tx, f)), now: Date.now() };
}

export default async function RejectionsPage({ searchParams }: SearchParamsProps) {
  const viewer = await requirePage("insight:read", "/rejections");
  const f = parseFilters(await searchParams);
  // Who may see it is decided before anything streams (a 404 keeps its status); the rejections stream in.
  return (
    <Suspense fallback={<PageLoading title="Rejections" what="the rejections" />}>
      <RejectionsWithData viewer={viewer} f={f} />
    </Suspense>
  );
}

async function RejectionsWithData({ viewer, f }: { viewer: Viewer; f: RejectionFilters }) {
  const { page, now } = await load(viewer, f);
  const filtered = !!(f.kind || f.event || f.actor || f.job);

  return (
    <div className="space-y-6">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Rejections</h1>
        <p className="mt-1 text-sm text-neutral-600">Every transition the write path refused, newest first.</p>
        <ul className="mt-2 space-y-0.5 text-xs text-neutral-600">
          {REJECTION_KINDS.map((k) => (
            <li key={k}>
              <span className="font-mono font-medium">{k}</span>: {KIND_HELP[k]}
            </li>
          ))}
        </ul>
      </div>

      <form
        method="get"
        action="/rejections"
        aria-label="Filter rejections"
        className="flex flex-wrap items-end gap-3 rounded-lg border border-neutral-200 bg-white p-4 shadow-xs"
      >
        {FILTER_SELECTS.map(({ name, label, values }) => (
          <label key={name} className={LABEL}>
            {label}
            <select name={name} defaultValue={f[name] ?? ""} className={INPUT}>
              <option value="">any</option>
              <Options of={values} />
            </select>
          </label>
        ))}
        <label className={LABEL}>
          Actor
          <input name="actor" defaultValue={f.actor ?? ""} placeholder="ops@… or a worker id" className={`${INPUT} w-48`} />
        </label>
        <label className={LABEL}>
          Job id
          <input name="job" defaultValue={f.job ?? ""} placeholder="uuid" className={`${INPUT} w-72 font-mono`} />
        </label>
        <button type="submit" className="rounded-md bg-neutral-900 px-3 py-1.5 text-sm font-medium text-white hover:bg-neutral-700">
          Filter
        </button>
        {filtered && (
          <Link href="/rejections" className="text-sm text-neutral-600 hover:underline">
            Clear
          </Link>
        )}
      </form>

      <PageTable
        rows={page.rows}
        empty={filtered ? "No rejection matches these filters." : "No transition has been refused."}
        caption="Rejections"
        rowKey={(r) => r.id}
        columns={columns(now)}
        rowClassName={(r) => (r.kind === "drift" ? "bg-red-50/60" : undefined)}
      />
      {(f.after || page.next) && (
        <nav aria-label="Pages" className="flex justify-end gap-3 text-sm">
          {f.after && (
            <Link href={href(f)} className="rounded-md border border-neutral-300 bg-white px-3 py-1.5 font-medium shadow-xs hover:bg-neutral-50">
              Newest
            </Link>
          )}
          {page.next && (
            <Link
              href={href(f, page.next)}
              className="rounded-md border border-neutral-300 bg-white px-3 py-1.5 font-medium shadow-xs hover:bg-neutral-50"
            >
              Older →
            </Link>
          )}
        </nav>
      )}
    </div>
  );
}
