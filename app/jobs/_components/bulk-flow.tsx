"use client";

import { useRef, useState } from "react";
import type { BulkEvent } from "@/lib/jobs/bulk";
import { ReplayDialog } from "@/app/_replay/replay-dialog";
import type { ReplayRequest } from "@/app/_replay/replay-types";
import { previewBulkAction, startBulkAction, type BulkPreviewData, type GenericBulkEvent } from "../actions";
import { BulkBar } from "./bulk-bar";
import { BulkDialog, type DialogState } from "./bulk-dialog";
import { BulkProgressPanel } from "./bulk-progress";
import { DeleteDialog, type DeleteTarget } from "./delete-dialog";

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

const FAILED = "Could not reach the server; nothing was changed. Try again.";

/**
 * Selection bar → dry-run dialog → confirmed operation → progress panel. A replay takes the one
 * replay dialog every page uses (app/_replay): its dry run, its warnings, its progress and outcome.
 */
export function BulkFlow({ selection, events, filterCount, onSelectFilter, onClear, canDelete }: Props) {
  const [dialog, setDialog] = useState<DialogState>({ phase: "closed" });
  const [operations, setOperations] = useState<string[]>([]);
  const [replay, setReplay] = useState<ReplayRequest | null>(null);
  const replays = useRef(0);
  const [deleting, setDeleting] = useState<{ key: number; target: DeleteTarget } | null>(null);

  async function preview(event: BulkEvent) {
    if (!selection) return;
    if (event === "replay") {
      const what = selection.kind === "ids" ? { kind: "ids" as const, ids: selection.ids } : { kind: "filter" as const, search: selection.search };
      setReplay({
        key: ++replays.current,
        selection: what,
        title:
          selection.kind === "ids"
            ? `Replay ${selection.count === 1 ? "the selected job" : `${selection.count} selected jobs`}`
            : "Replay the jobs matching this filter",
      });
      return;
    }
    await previewGeneric(event);
  }

  async function previewGeneric(event: GenericBulkEvent) {
    if (!selection) return;
    setDialog({ phase: "checking", event });
    const input = selection.kind === "ids" ? { ids: selection.ids } : { search: selection.search };
    const result = await previewBulkAction({ event, selection: input }).catch(() => null);
    if (!result) setDialog({ phase: "error", event, message: FAILED });
    else if (!result.ok) setDialog({ phase: "error", event, message: result.error.message });
    else setDialog({ phase: "preview", preview: result.data, isStarting: false, error: null });
  }

  async function confirm(p: BulkPreviewData) {
    setDialog({ phase: "preview", preview: p, isStarting: true, error: null });
    const result = await startBulkAction({ event: p.event, description: p.description, frozen: p.frozen }).catch(() => null);
    if (!result || !result.ok) {
      setDialog({ phase: "preview", preview: p, isStarting: false, error: result ? result.error.message : FAILED });
      return;
    }
    setOperations((ops) => [result.data.operationId, ...ops]);
    setDialog({ phase: "closed" });
    onClear();
  }

  return (
    <>
      {operations.map((id) => (
        <BulkProgressPanel key={id} operationId={id} onDismiss={() => setOperations((ops) => ops.filter((o) => o !== id))} />
      ))}
      {selection && (
        <BulkBar
          count={selection.count}
          countIsCapped={selection.capped}
          isFilter={selection.kind === "filter"}
          filterCount={filterCount}
          events={events}
          onSelectFilter={onSelectFilter}
          onClear={onClear}
          onAction={(e) => void preview(e)}
          canDelete={canDelete}
          onDelete={() =>
            setDeleting({
              key: ++replays.current,
              target: selection.kind === "ids" ? { kind: "ids", ids: selection.ids } : { kind: "filter", search: selection.search },
            })
          }
        />
      )}
      <BulkDialog state={dialog} onClose={() => setDialog({ phase: "closed" })} onConfirm={(p) => void confirm(p)} />
      {deleting && <DeleteDialog key={deleting.key} target={deleting.target} onClose={() => setDeleting(null)} onDeleted={onClear} />}
      {replay && <ReplayDialog key={replay.key} request={replay} onClose={() => setReplay(null)} onApplied={() => onClear()} />}
    </>
  );
}
