import Link from "next/link";
import { numbers } from "@/components/numbers";
import { STATE_STYLES } from "@/components/state-badge";
import { STATES, type JobState } from "@/lib/fsm/table";
import type { JobFilters } from "@/lib/jobs/filters";
import type { StateCounts } from "@/lib/jobs/queries";
import { refilteredHref } from "./url";

/** One tab per state in the machine's order, plus "All", each with its count under the other filters. */
export function StateTabs({ filters, counts }: { filters: JobFilters; counts: StateCounts | null }) {
  const anyCapped = counts ? STATES.some((s) => counts[s].capped) : false;
  const total = counts ? STATES.reduce((sum, s) => sum + counts[s].n, 0) : null;
  return (
    // The strip wraps onto a second line rather than hiding tabs off the edge of a narrow screen.
    <nav aria-label="Job states" className="border-b border-neutral-200">
      <ul className="flex flex-wrap gap-x-0.5 text-sm">
        <Tab href={refilteredHref(filters, { state: undefined })} label="All" isCurrent={!filters.state} n={total} capped={anyCapped} />
        {STATES.map((state) => (
          <Tab
            key={state}
            href={refilteredHref(filters, { state })}
            label={state}
            state={state}
            isCurrent={filters.state === state}
            n={counts ? counts[state].n : null}
            capped={counts ? counts[state].capped : false}
          />
        ))}
      </ul>
    </nav>
  );
}

type TabProps = { href: string; label: string; state?: JobState; isCurrent: boolean; n: number | null; capped: boolean };

function Tab({ href, label, state, isCurrent, n, capped }: TabProps) {
  const figure = n === null ? "—" : `${numbers.format(n)}${capped ? "+" : ""}`;
  return (
    <li>
      {/* No prefetch: each tab is a list query and nine counts on the server, and the data is live anyway. */}
      <Link
        href={href}
        prefetch={false}
        aria-current={isCurrent ? "page" : undefined}
        aria-label={`${label}: ${figure}${capped ? " (at least)" : ""}`}
        className={`flex items-center gap-1 rounded-t-md border-b-2 px-1.5 py-2 font-medium focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-neutral-900 ${
          isCurrent ? "border-neutral-900 text-neutral-900" : "border-transparent text-neutral-600 hover:border-neutral-300 hover:text-neutral-900"
        }`}
      >
        {state && <span aria-hidden="true" className={`size-2 rounded-full ${STATE_STYLES[state].swatch}`} />}
        <span className={state ? "font-mono text-xs" : ""}>{label}</span>
        <span
          title={capped ? `At least ${numbers.format(n ?? 0)}: counting stops there so the page stays fast at any size` : undefined}
          className={`rounded-full px-1.5 text-xs leading-5 tabular-nums ${isCurrent ? "bg-neutral-900 text-white" : "bg-neutral-100 text-neutral-600"}`}
        >
          {figure}
        </span>
      </Link>
    </li>
  );
}
