import type { Metadata } from "next";
import Link from "next/link";
import { Suspense } from "react";
import { PageLoading } from "@/components/page-loading";
import { JobLink, None } from "@/components/cells";
import type { Column } from "@/components/data-table";
import { PageTable } from "@/components/page-table";
import { FilterSelect, TextField } from "@/components/form-field";
import { numbers } from "@/components/numbers";
import { LocalTime, TimeAgo } from "@/components/time-zone";
import { PRIMARY, SECONDARY } from "@/components/fields";
import { operationHref } from "@/app/jobs/_components/url";
import { listAudit, listAuditActions, type AuditFilters, type AuditOutcome } from "@/lib/audit/audit";
import { ROLE_LABELS, type Role } from "@/lib/auth/permissions";
import { listUsers } from "@/lib/auth/users";
import { requirePage, withViewerRead, type Viewer } from "@/lib/auth/viewer";
import { pool } from "@/lib/db/client";
import { auditHref, OUTCOMES, parseAuditSearch, toMinute } from "./filters";
import type { SearchParamsProps } from "@/lib/frame/page";

export const metadata: Metadata = { title: "Audit" };
export const dynamic = "force-dynamic";

const OUTCOME_STYLE: Record<AuditOutcome, string> = {
  applied: "bg-emerald-50 text-emerald-800 ring-emerald-600/20",
  refused: "bg-amber-50 text-amber-800 ring-amber-600/20",
  denied: "bg-red-50 text-red-800 ring-red-600/20",
  invalid: "bg-orange-50 text-orange-800 ring-orange-600/20",
  error: "bg-red-100 text-red-900 ring-red-700/30",
};
const OUTCOME_HELP: Record<AuditOutcome, string> = {
  applied: "done",
  refused: "refused by the state machine or a rule (e.g. the last admin)",
  denied: "the role may not do it, or nobody was signed in",
  invalid: "the input was not valid; nothing was written",
  error: "the server failed; nothing was written",
};
const JOBS_SHOWN = 3;

type Row = NonNullable<Awaited<ReturnType<typeof listAudit>>>["rows"][number];

function columns(f: AuditFilters, now: number): Column<Row>[] {
  return [
    {
      header: "When",
      className: "text-xs whitespace-nowrap text-neutral-600",
      cell: (r) => (
        <>
          <TimeAgo at={r.at} now={now} />
          <LocalTime at={r.at} className="block text-neutral-600 tabular-nums" />
        </>
      ),
    },
    {
      header: "User",
      className: "max-w-56",
      cell: (r) => (
        <>
          <Link
            href={auditHref({ ...f, actor: r.actor })}
            className="block truncate text-xs font-medium text-neutral-900 hover:underline"
            title={`Only ${r.actor}`}
          >
            {r.actor}
          </Link>
          <div className="truncate text-xs text-neutral-600">
            {r.role ? (ROLE_LABELS[r.role as Role] ?? r.role) : "signed out"}
            {r.tenantId ? ` · ${r.tenantId}` : ""}
          </div>
        </>
      ),
    },
    {
      header: "Action",
      cell: (r) => (
        <>
          <Link href={auditHref({ ...f, action: r.action })} className="font-mono text-xs hover:underline" title={`Only ${r.action}`}>
            {r.action}
          </Link>
          <div className="text-xs text-neutral-600">{r.via}</div>
        </>
      ),
    },
    {
      header: "Outcome",
      cell: (r) => (
        <>
          <span
            title={OUTCOME_HELP[r.outcome]}
            className={`inline-flex rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset ${OUTCOME_STYLE[r.outcome]}`}
          >
            {r.outcome}
          </span>
          {r.repeatCount > 1 && (
            <div className="text-xs text-neutral-600" title="Anonymous attempts alike, aggregated into this row">
              × {numbers.format(r.repeatCount)}
            </div>
          )}
        </>
      ),
    },
    {
      header: "Jobs",
      className: "text-xs",
      cell: (r) =>
        r.operationId ? (
          // A bulk operation is one entry: its jobs, and what became of each, are one link away.
          <Link
            href={operationHref(r.operationId)}
            prefetch={false}
            className="font-medium whitespace-nowrap text-sky-800 underline underline-offset-2"
          >
            {numbers.format(r.jobIds.length)} {r.jobIds.length === 1 ? "job" : "jobs"} · outcomes →
          </Link>
        ) : r.jobIds.length === 0 ? (
          <None />
        ) : (
          <ul className="space-y-0.5">
            {r.jobIds.slice(0, JOBS_SHOWN).map((id) => (
              <li key={id}>
                <JobLink id={id} />
              </li>
            ))}
            {r.jobIds.length > JOBS_SHOWN && <li className="text-neutral-600">and {numbers.format(r.jobIds.length - JOBS_SHOWN)} more</li>}
          </ul>
        ),
    },
    { header: "Reason", className: "max-w-md text-xs break-words whitespace-pre-wrap text-neutral-700", cell: (r) => r.reason ?? <None /> },
  ];
}

/**
 * The page's data, and when it was read (relative times count from then). A failed read is the
 * page's failure: app/error.tsx says why (the database, or the server) and retries.
 */
async function load(viewer: Viewer, f: AuditFilters) {
  // The console's role cannot read the audit log outside a staff transaction (row-level security, drizzle/0015).
  const [{ page, actions }, users] = await Promise.all([
    withViewerRead(viewer, async (tx) => ({ page: await listAudit(tx, f), actions: await listAuditActions(tx) })),
    listUsers(pool()),
  ]);
  return { page, actions, people: users.map((u) => u.email), now: Date.now() };
}

/** Every console and API action, newest first: who, what, on which jobs, and how it ended. */
export default async function AuditPage({ searchParams }: SearchParamsProps) {
  const viewer = await requirePage("audit:read", "/audit");
  const { filters: f, ignored } = parseAuditSearch(await searchParams);
  // Who may see it is decided before anything streams (a 404 keeps its status); the log streams in.
  return (
    <Suspense fallback={<PageLoading title="Audit log" what="the audit log" />}>
      <AuditWithData viewer={viewer} f={f} ignored={ignored} />
    </Suspense>
  );
}

async function AuditWithData({ viewer, f, ignored }: { viewer: Viewer; f: AuditFilters; ignored: string[] }) {
  const { page, actions, people, now } = await load(viewer, f);
  const filtered = !!(f.actor || f.action || f.outcome || f.since || f.until);

  return (
    <div className="space-y-6">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Audit log</h1>
        <p className="mt-1 text-sm text-neutral-600">
          Every console and API action — applied, refused, denied or invalid — with who did it, newest first. Times are in your time zone (UTC on
          hover); the From and To filters are UTC.
        </p>
      </div>

      <form
        method="get"
        action="/audit"
        role="search"
        aria-label="Filter the audit log"
        className="rounded-lg border border-neutral-200 bg-white p-4 shadow-xs"
      >
        <div className="grid grid-cols-2 gap-3 md:grid-cols-5">
          <TextField
            id="a-user"
            label="User"
            name="user"
            suggestions={[...people, "anonymous"].map((value) => ({ value }))}
            defaultValue={f.actor ?? ""}
            placeholder="email or anonymous"
            maxLength={200}
          />
          <FilterSelect
            id="a-action"
            label="Action"
            name="action"
            defaultValue={f.action ?? ""}
            any="Any action"
            // The action the URL names stays chosen even when no entry has it.
            options={f.action && !actions.includes(f.action) ? [f.action, ...actions] : actions}
          />
          <FilterSelect id="a-outcome" label="Outcome" name="outcome" defaultValue={f.outcome ?? ""} any="Any outcome" options={OUTCOMES} />
          <TextField id="a-from" label="From" hint="UTC" name="from" type="datetime-local" defaultValue={f.since ? toMinute(f.since) : ""} />
          <TextField id="a-to" label="To" hint="UTC, before" name="to" type="datetime-local" defaultValue={f.until ? toMinute(f.until) : ""} />
        </div>
        <div className="mt-3 flex items-center justify-end gap-2">
          {filtered && (
            <Link href="/audit" className={SECONDARY}>
              Clear filters
            </Link>
          )}
          <button type="submit" className={PRIMARY}>
            Apply filters
          </button>
        </div>
      </form>

      {ignored.length > 0 && (
        <p role="status" className="rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900">
          Ignored {ignored.join(", ")}.
        </p>
      )}

      <PageTable
        rows={page.rows}
        empty={filtered ? "No audit entry matches these filters." : "Nothing has been recorded yet."}
        caption="Audit log"
        rowKey={(r) => String(r.id)}
        rowClassName={(r) => (r.outcome === "denied" || r.outcome === "error" ? "bg-red-50/40" : undefined)}
        columns={columns(f, now)}
      />

      {(f.before || page.next) && (
        <nav aria-label="Pages" className="flex items-center justify-end gap-2 text-sm">
          {f.before && (
            <Link href={auditHref(f)} className={SECONDARY}>
              Newest
            </Link>
          )}
          {page.next && (
            <Link href={auditHref(f, page.next)} rel="next" className={SECONDARY}>
              Older →
            </Link>
          )}
        </nav>
      )}
    </div>
  );
}
