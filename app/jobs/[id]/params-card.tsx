import { Card } from "@/components/charts/card";
import { JsonViewer } from "@/components/json-viewer";
import type { EventRecord } from "@/lib/jobs/queries";
import { paramsDiff } from "@/lib/jobs/params-diff";

/**
 * The job's params: as submitted (its catalog row, never changed), and, when an operator replayed it
 * with edited params, the params its attempts since then ran with, from that replay's event.
 */
export function ParamsCard({ params, events }: { params: unknown; events: readonly EventRecord[] }) {
  const edit = [...events].reverse().find((e) => e.event === "replay" && e.payload && "params" in e.payload);
  if (!edit) {
    return (
      <Card title="Params" id="params">
        <JsonViewer value={params} label="Params" />
      </Card>
    );
  }
  const edited = edit.payload!.params;
  const changes = paramsDiff(params, edited);
  return (
    <Card title="Params" id="params">
      <div className="space-y-3">
        <p role="note" className="rounded-md bg-sky-50 px-3 py-2 text-sm text-sky-950">
          Replayed with edited params (version {edit.stateVersion}
          {edit.actorId ? `, by ${edit.actorId}` : ""}): attempts from {edit.attempt + 1} on run with these.
          {changes.length > 0 && (
            <span className="mt-1 block font-mono text-xs">
              {changes
                .map(
                  (c) =>
                    `${c.path}: ${c.from === undefined ? "(absent)" : JSON.stringify(c.from)} → ${c.to === undefined ? "(absent)" : JSON.stringify(c.to)}`,
                )
                .join("; ")}
            </span>
          )}
        </p>
        <JsonViewer value={edited} label="Params since the replay" />
        <details>
          <summary className="cursor-pointer text-sm text-neutral-700">As submitted</summary>
          <div className="mt-2">
            <JsonViewer value={params} label="Params as submitted" />
          </div>
        </details>
      </div>
    </Card>
  );
}
