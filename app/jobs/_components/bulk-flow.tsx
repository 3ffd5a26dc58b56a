"use client";

import { useRef, useState } from "react";
import type { OperationKind } from "@/lib/client/wire";
import type { BulkEvent } from "@/lib/jobs/bulk";
import { OperationDialog } from "@/app/_operation/operation-dialog";
import type { OperationRequest } from "@/app/_operation/types";
import { BulkBar } from "./bulk-bar";

/** What the operator picked: ids on this page, or everything matching the filter (its query string, cursor dropped). */
export type PickedSelection =
  { kind: "ids"; ids: string[]; count: number; capped: false } | { kind: "filter"; search: string; count: number; capped: boolean };

type Props = {
  selection: PickedSelection | null;
  events: BulkEvent[];
  /** The filter's count, when "everything matching this filter" is worth offering. */
  filterCount: { n: number; capped: boolean } | null;
  onSelectFilter: () => void;
  onClear: () => void;
  /** The selection holds finished jobs: offer to delete them. */
  canDelete: boolean;
};

/** Selection bar → the one operation dialog (app/_operation): dry run, confirm, progress and result. */
export function BulkFlow({ selection, events, filterCount, onSelectFilter, onClear, canDelete }: Props) {
  const [operation, setOperation] = useState<OperationRequest | null>(null);
  const opened = useRef(0);

  function ask(event: OperationKind) {
    if (!selection) return;
    const what = selection.kind === "ids" ? { kind: "ids" as const, ids: selection.ids } : { kind: "filter" as const, search: selection.search };
    const which =
      selection.kind === "ids" ? (selection.count === 1 ? "the selected job" : `${selection.count} selected jobs`) : "the jobs matching this filter";
    setOperation({
      key: ++opened.current,
      operation: event,
      selection: what,
      title: event === "delete" ? "Delete finished jobs" : `${event.charAt(0).toUpperCase()}${event.slice(1)} ${which}`,
    });
  }

  return (
    <>
      {selection && (
        <BulkBar
          count={selection.count}
          countIsCapped={selection.capped}
          isFilter={selection.kind === "filter"}
          filterCount={filterCount}
          events={events}
          onSelectFilter={onSelectFilter}
          onClear={onClear}
          onAction={ask}
          canDelete={canDelete}
          onDelete={() => ask("delete")}
        />
      )}
      {operation && <OperationDialog key={operation.key} request={operation} onClose={() => setOperation(null)} onApplied={() => onClear()} />}
    </>
  );
}
