"use client";

import { useQuery } from "@tanstack/react-query";
import { useCallback, useRef, useState } from "react";
import { liveStatus, QueryLoadError } from "@/components/live-query";
import { isFailingOf, PageHeader, useLive } from "@/components/page-header";
import { deadGroupsQuery } from "@/lib/client/queries";
import type { DeadGroupsResponse } from "@/lib/client/wire";
import { numbers, plural } from "@/components/numbers";
import { GroupsTable } from "./groups-table";
import { OperationDialog } from "../_operation/operation-dialog";
import type { OperationRequest, SelectionInput } from "../_operation/types";
import { ScopeForm } from "./scope-form";
import { scopeToSearch, type DeadScopeParams } from "./scope";

const POLL_MS = 5_000;

export function DeadJobsView({
  scope,
  initial,
  renderedAt,
  canReplay,
}: {
  scope: DeadScopeParams;
  initial: DeadGroupsResponse | null;
  renderedAt: number;
  /** Operators replay; support sees the same groups without the buttons. */
  canReplay: boolean;
}) {
  const live = useLive(POLL_MS);
  const isPaused = live.isPaused;
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [replay, setReplay] = useState<OperationRequest | null>(null);
  const nextKey = useRef(0);
  const query = useQuery({
    ...deadGroupsQuery(scopeToSearch(scope).toString()),
    initialData: initial ?? undefined,
    initialDataUpdatedAt: renderedAt,
    ...live.poll,
  });
  const data = query.data;
  const isFailing = isFailingOf(query);
  const total = data?.groups.reduce((n, g) => n + g.count, 0) ?? 0;
  const isScoped = !!scope.tenant || scope.window !== "all";

  const toggle = useCallback((ids: string[], on: boolean) => {
    setSelected((prev) => {
      const next = new Set(prev);
      for (const id of ids) {
        if (on) next.add(id);
        else next.delete(id);
      }
      return next;
    });
  }, []);
  const ask = useCallback((selection: SelectionInput, title: string) => {
    setReplay({ key: ++nextKey.current, operation: "replay", selection, title });
  }, []);

  return (
    <div className="space-y-6">
      <PageHeader
        title="Dead jobs"
        description="Grouped by job type and the error of the attempt that killed them. Replay sends a job back to queued with its history kept; every replay shows a dry run first."
        live={liveStatus(live, query)}
      />

      <ScopeForm scope={scope} />

      <QueryLoadError
        query={query}
        refreshing="Could not refresh the dead jobs; showing the last ones received."
        loading="Could not load the dead jobs."
      />

      {!data && !isFailing && (
        <p role="status" className="text-sm text-neutral-600">
          Loading dead jobs…
        </p>
      )}

      {data && data.groups.length === 0 && (
        <div className="rounded-lg border border-dashed border-neutral-300 bg-white px-6 py-10 text-center">
          <p className="font-medium">No dead jobs</p>
          <p className="mt-1 text-sm text-neutral-600">
            {isScoped
              ? "None in this scope. Widen the time range or clear the tenant to see more."
              : "Jobs land here when their attempts run out, an error is permanent, or an operator gives up on them."}
          </p>
        </div>
      )}

      {data && data.groups.length > 0 && (
        <section aria-labelledby="groups-heading" className="space-y-3">
          <div className="flex flex-wrap items-center justify-between gap-3">
            <h2 id="groups-heading" className="text-sm text-neutral-600">
              <span className="font-semibold text-neutral-900 tabular-nums">{plural(total, "dead job")}</span> in{" "}
              {plural(data.groups.length, "group")}
              {data.capped && (
                <span className="ml-2 rounded bg-amber-50 px-1.5 py-0.5 text-xs text-amber-900">
                  counted over the newest {numbers.format(data.scanCap)}; narrow the time range for exact counts
                </span>
              )}
            </h2>
            {canReplay && (
              <div className="flex flex-wrap items-center gap-2">
                <div role="group" aria-label="Selection" className="flex items-center gap-2">
                  <span className="text-sm text-neutral-600 tabular-nums" aria-live="polite">
                    {numbers.format(selected.size)} selected
                  </span>
                  <button
                    type="button"
                    disabled={selected.size === 0}
                    onClick={() => setSelected(new Set())}
                    className="rounded-md px-2.5 py-1.5 text-sm font-medium text-neutral-600 hover:bg-neutral-100 disabled:opacity-40"
                  >
                    Clear selection
                  </button>
                  <button
                    type="button"
                    disabled={selected.size === 0}
                    onClick={() => ask({ kind: "ids", ids: [...selected] }, `Replay ${plural(selected.size, "selected job")}`)}
                    className="rounded-md bg-neutral-900 px-3 py-1.5 text-sm font-medium text-white shadow-xs hover:bg-neutral-700 disabled:bg-neutral-300"
                  >
                    Replay selected
                  </button>
                </div>
                <span aria-hidden="true" className="mx-1 h-5 w-px bg-neutral-300" />
                <button
                  type="button"
                  onClick={() => ask({ kind: "all", scope }, isScoped ? "Replay all dead jobs in this scope" : "Replay all dead jobs")}
                  className="rounded-md border border-neutral-300 bg-white px-3 py-1.5 text-sm font-medium text-neutral-800 shadow-xs hover:bg-neutral-50"
                >
                  Replay all
                </button>
              </div>
            )}
          </div>
          <GroupsTable
            groups={data.groups}
            at={data.at}
            scope={scope}
            isPaused={isPaused}
            selected={selected}
            onToggle={toggle}
            onReplay={canReplay ? ask : undefined}
          />
        </section>
      )}

      {replay && <OperationDialog key={replay.key} request={replay} onClose={() => setReplay(null)} onApplied={(ids) => toggle(ids, false)} />}
    </div>
  );
}
