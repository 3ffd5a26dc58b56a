"use client";

import { numbers } from "@/components/numbers";
import type { BulkEvent } from "@/lib/jobs/bulk";
import { BUTTON, SECONDARY } from "@/components/fields";

type Props = {
  /** How many jobs the selection holds: ids picked, or the filter's count. */
  count: number;
  countIsCapped: boolean;
  isFilter: boolean;
  /** Offer "everything matching this filter" when the whole page is picked and there is more. */
  filterCount: { n: number; capped: boolean } | null;
  events: BulkEvent[];
  onSelectFilter: () => void;
  onClear: () => void;
  onAction: (event: BulkEvent) => void;
  /** The selection holds finished jobs, which an operator may delete (with their history). */
  canDelete: boolean;
  onDelete: () => void;
};

/** What is selected, and the actions some of it could take. */
export function BulkBar({ count, countIsCapped, isFilter, filterCount, events, onSelectFilter, onClear, onAction, canDelete, onDelete }: Props) {
  const figure = `${numbers.format(count)}${countIsCapped ? "+" : ""}`;
  return (
    <section
      aria-label="Bulk actions"
      className="flex flex-wrap items-center justify-between gap-3 rounded-lg border border-sky-200 bg-sky-50 px-4 py-2.5 text-sm"
    >
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
        <p role="status" className="font-medium text-sky-950">
          {isFilter ? `All ${figure} jobs matching this filter are selected` : `${figure} selected on this page`}
        </p>
        {filterCount && (
          <button
            type="button"
            onClick={onSelectFilter}
            className="rounded font-medium text-sky-800 underline underline-offset-2 hover:text-sky-950 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-800"
          >
            Select everything matching this filter ({numbers.format(filterCount.n)}
            {filterCount.capped ? "+" : ""})
          </button>
        )}
        <button
          type="button"
          onClick={onClear}
          className="rounded text-sky-800 hover:text-sky-950 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-800"
        >
          Clear selection
        </button>
      </div>
      <div role="group" aria-label="Actions on the selection" className="flex flex-wrap items-center gap-2">
        {events.length === 0 && !canDelete && <span className="text-sky-900">No action applies to the selected jobs.</span>}
        {events.map((event) => (
          <button
            key={event}
            type="button"
            onClick={() => onAction(event)}
            className={event === "cancel" || event === "abandon" ? `${BUTTON} border-red-300 bg-white text-red-700 hover:bg-red-50` : SECONDARY}
          >
            {capitalize(event)}…
          </button>
        ))}
        {canDelete && (
          <button type="button" onClick={onDelete} className={`${BUTTON} border-red-300 bg-white text-red-700 hover:bg-red-50`}>
            Delete finished…
          </button>
        )}
      </div>
    </section>
  );
}

const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
