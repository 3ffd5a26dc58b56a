"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { liveStatus, QueryLoadError } from "@/components/live-query";
import { plural } from "@/components/numbers";
import { isFailingOf, PageHeader, useLive } from "@/components/page-header";
import { jobsQuery } from "@/lib/client/queries";
import type { JobsResponse } from "@/lib/client/wire";
import { isTerminal } from "@/lib/fsm/machine";
import { STATES, TERMINAL_STATES, type ActorKind, type JobState } from "@/lib/fsm/table";
import { SECONDARY } from "@/components/fields";
import Link from "next/link";
import { CleanUpDialog } from "./clean-up-dialog";
import { paramsProblem, parseJobFilters, type FilterProblem } from "@/lib/jobs/filters";
import { BulkFlow, type PickedSelection } from "./bulk-flow";
import type { TenantOption } from "@/lib/jobs/tenant-pick";
import { idQueryOf } from "@/lib/uuid";
import { FilterProblems, MatchedId, PhraseEcho } from "./lookup-notes";
import { FilterForm } from "./filter-form";
import { useHeldRows } from "./held-rows";
import { JobsTable } from "./jobs-table";
import { EmptyState, LoadingRows } from "./states";
import { Lookup } from "./lookup";
import { offeredEvents } from "./offered-events";
import { OperationSummary } from "./operation-summary";
import { Pager } from "./pager";
import { QueueBanner } from "./queue-banner";
import { StateTabs } from "./state-tabs";
import { searchOf } from "./url";

const POLL_MS = 3_000;

/** `actorKind`: who the viewer acts as in bulk actions; null for roles that may not run them. `isStaff`: not a tenant member. */
type Props = {
  search: string;
  initial: JobsResponse | null;
  /** When the server read `initial` (lib/frame/first-view.ts). */
  renderedAt: number;
  actorKind: ActorKind | null;
  isStaff?: boolean;
  tenants?: readonly TenantOption[];
  /** The job types the server knows (lib/jobs/job-types.ts JOB_TYPES, as the page rendered them). */
  types?: readonly string[];
  /** What the link asked for that the list could not apply (lib/jobs/filters.ts readJobFilters). */
  problems?: readonly FilterProblem[];
};
type Picked = { search: string; ids: ReadonlySet<string>; everything: boolean };

/** The jobs list: server-rendered first, then polled live under the filters in the URL. */
export function JobsView({ search, initial, renderedAt, actorKind, isStaff = false, tenants = [], types = [], problems = [] }: Props) {
  const filters = parseJobFilters(new URLSearchParams(search));
  const badParams = paramsProblem(filters);
  const live = useLive(POLL_MS);
  const query = useQuery({
    ...jobsQuery(search),
    enabled: badParams === null,
    initialData: initial ?? undefined,
    initialDataUpdatedAt: renderedAt,
    ...live.poll,
  });
  const data = query.data;
  const isFailing = badParams === null && (isFailingOf(query) || (!data && query.isError));
  const held = useHeldRows(search, data, filters.sort);

  // A selection belongs to the list it was made on: another filter or page starts empty.
  const [picked, setPicked] = useState<Picked>({ search, ids: new Set(), everything: false });
  const current = picked.search === search ? picked : { search, ids: new Set<string>(), everything: false };
  const setIds = (ids: ReadonlySet<string>) => setPicked({ search, ids, everything: false });

  const jobs = held.rows;
  const counts = data?.counts ?? null;
  const filterStates: JobState[] = filters.state ? [filters.state] : [...STATES];
  const filterCount = counts ? { n: filterStates.reduce((n, s) => n + counts[s].n, 0), capped: filterStates.some((s) => counts[s].capped) } : null;

  let selection: PickedSelection | null = null;
  const offered = (states: JobState[]) => (actorKind ? offeredEvents(states, actorKind) : []);
  let events = offered(jobs.filter((j) => current.ids.has(j.id)).map((j) => j.state));
  if (current.everything && filterCount) {
    selection = { kind: "filter", search: searchOf({ ...filters, after: undefined, before: undefined }), ...filterCount, count: filterCount.n };
    events = offered(filterStates.filter((s) => counts && counts[s].n > 0));
  } else if (current.ids.size > 0) {
    selection = { kind: "ids", ids: [...current.ids], count: current.ids.size, capped: false };
  }
  // Finished jobs in the selection (or the filter's counts): an operator may delete them.
  const canDelete = current.everything
    ? TERMINAL_STATES.some((s) => filterStates.includes(s) && (counts?.[s].n ?? 0) > 0)
    : jobs.some((j) => current.ids.has(j.id) && isTerminal(j.state));
  const [cleaning, setCleaning] = useState(0);
  const allOnPage = jobs.length > 0 && jobs.every((j) => current.ids.has(j.id));
  // A lookup by a piece of an id: each row says which part of its id matched.
  const lookup = filters.q ? idQueryOf(filters.q) : null;
  const piece = lookup?.kind === "piece" ? lookup : null;

  return (
    <div className="space-y-5">
      <PageHeader
        title="Jobs"
        description="Every job, newest first, live. Filters live in the URL: share the link."
        live={liveStatus(live, query, { isFailing })}
      >
        {actorKind === "operator" && (
          // Not prefetched: a click during the prefetch of its own route could be lost (e2e/bulk.spec.ts).
          <Link href="/jobs/new" prefetch={false} className={SECONDARY}>
            Submit a job
          </Link>
        )}
      </PageHeader>

      <div className="space-y-3 rounded-lg border border-neutral-200 bg-white p-4 shadow-xs">
        <Lookup key={`q-${search}`} filters={filters} tenants={isStaff ? tenants : []} types={types} />
        <FilterForm
          key={`f-${search}`}
          filters={filters}
          isStaff={isStaff}
          tenants={tenants}
          types={types}
          onCleanUp={actorKind === "operator" ? () => setCleaning((n) => n + 1) : undefined}
        />
      </div>
      {filters.queue && <QueueBanner queue={filters.queue} pollMs={live.isPaused ? false : POLL_MS} isStaff={isStaff} />}
      {filters.operation && <OperationSummary filters={filters} outcome={data?.operation} />}
      <FilterProblems problems={problems} filters={filters} />
      {filters.phrase && <PhraseEcho phrase={filters.phrase} tenants={isStaff ? tenants : []} types={types} />}
      <StateTabs filters={filters} counts={counts} />
      {badParams && (
        <p role="alert" className="rounded-lg border border-red-200 bg-red-50 px-4 py-2.5 text-sm text-red-900">
          The params search <span className="font-mono">{filters.params}</span> was not run: {badParams} Change it under Filters.
        </p>
      )}

      <QueryLoadError
        query={query}
        isFailing={isFailing}
        refreshing="Could not refresh the list; showing the last jobs received."
        loading="Could not load the jobs."
      />
      {actorKind && (
        <BulkFlow
          selection={selection}
          events={events}
          filterCount={allOnPage && !current.everything && filterCount && filterCount.n > jobs.length ? filterCount : null}
          onSelectFilter={() => setPicked({ search, ids: current.ids, everything: true })}
          onClear={() => setIds(new Set())}
          canDelete={canDelete}
        />
      )}
      {cleaning > 0 && <CleanUpDialog key={cleaning} filters={filters} onClose={() => setCleaning(0)} onDeleted={() => setIds(new Set())} />}

      <section id="results" tabIndex={-1} aria-label="Results" className="space-y-3 focus:outline-none">
        <NewJobsPill waiting={held.waiting} onShow={held.showAll} />
        {data?.ranked?.capped && (
          <p role="note" className="rounded-lg border border-amber-200 bg-amber-50 px-4 py-2.5 text-sm text-amber-950">
            Ranked by duration among the newest {data.ranked.n.toLocaleString("en-US")} matching jobs only: narrow the dates, type or tenant to rank
            every match.
          </p>
        )}
        {!data && !isFailing && !badParams && <LoadingRows />}
        {data && jobs.length === 0 && held.waiting === 0 && <EmptyState filters={filters} isFiltered={search !== ""} isStaff={isStaff} />}
        {jobs.length > 0 && (
          <JobsTable
            jobs={jobs}
            selected={current.everything ? new Set(jobs.map((j) => j.id)) : current.ids}
            onToggle={(id) => {
              const ids = new Set(current.everything ? jobs.map((j) => j.id) : current.ids);
              if (ids.has(id)) ids.delete(id);
              else ids.add(id);
              setIds(ids);
            }}
            onTogglePage={(select) => setIds(select ? new Set(jobs.map((j) => j.id)) : new Set())}
            selectable={actorKind !== null}
            isStaff={isStaff}
            match={piece ? (id) => <MatchedId id={id} piece={piece} /> : undefined}
          />
        )}
        {data && <Pager filters={filters} prev={data.prev} next={data.next} shown={jobs.length} />}
      </section>
    </div>
  );
}

/** New jobs that arrived while the reader was on the page: they wait here until asked for. */
function NewJobsPill({ waiting, onShow }: { waiting: number; onShow: () => void }) {
  return (
    <div aria-live="polite" className="sticky top-2 z-10 flex justify-center empty:hidden">
      {waiting > 0 && (
        <button
          type="button"
          onClick={onShow}
          className="rounded-full bg-sky-700 px-4 py-1.5 text-sm font-medium text-white shadow-md hover:bg-sky-800"
        >
          <span aria-hidden="true">↑ </span>Show {plural(waiting, "new job")}
        </button>
      )}
    </div>
  );
}
