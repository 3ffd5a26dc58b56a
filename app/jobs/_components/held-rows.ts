"use client";

import { useState } from "react";
import type { JobWire, JobsResponse } from "@/lib/client/wire";
import type { JobFilters } from "@/lib/jobs/filters";

type View = { search: string; data: JobsResponse | undefined; rows: JobWire[] };
type Sort = JobFilters["sort"];

/**
 * Newest first, new jobs arrive above the rows on screen and wait behind the pill. Longest first
 * is a ranking, and oldest first grows at its far end: both are shown as polled.
 */
const holdsStill = (sort: Sort) => sort === "created" || sort === "finished";

/** Whether `row` was pushed off the end of a full page (by newer jobs), rather than leaving the filter. */
function fellOff(row: JobWire, page: JobsResponse, sort: Sort): boolean {
  // Longest first has no "newer jobs" to hold back: the ranking is shown as polled.
  if (!holdsStill(sort)) return false;
  const oldest = page.jobs.at(-1);
  if (!oldest || page.next === null) return false;
  const at = (j: JobWire) => (sort === "finished" ? (j.finishedAt ?? "") : j.createdAt);
  return at(row) < at(oldest) || (at(row) === at(oldest) && row.id < oldest.id);
}

/**
 * The live list holds still: each poll updates the rows on screen in place and
 * drops the ones that left the filter, but jobs that were not on screen wait
 * behind an "N new jobs" pill until the reader asks for them. Rows that newer
 * jobs pushed off a full page stay, as last seen, until then.
 */
export function useHeldRows(search: string, data: JobsResponse | undefined, sort: Sort) {
  const [view, setView] = useState<View>({ search, data, rows: data?.jobs ?? [] });
  let current = view;
  if (data && view.data !== data) {
    let rows = data.jobs;
    if (view.search === search && holdsStill(sort)) {
      const polled = new Map(data.jobs.map((j) => [j.id, j]));
      rows = view.rows.flatMap((r) => {
        const now = polled.get(r.id);
        return now ? [now] : fellOff(r, data, sort) ? [r] : [];
      });
    }
    current = { search, data, rows };
    // Adjusting state while rendering, as React documents for state derived from a previous render.
    setView(current);
  }
  const onScreen = new Set(current.rows.map((r) => r.id));
  const waiting = (data?.jobs ?? []).filter((j) => !onScreen.has(j.id));
  return {
    rows: current.rows,
    waiting: waiting.length,
    /** Shows the page as the latest poll has it. */
    showAll: () => setView({ search, data, rows: data?.jobs ?? [] }),
  };
}
