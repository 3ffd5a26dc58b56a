import Link from "next/link";
import { numbers } from "@/components/numbers";
import { STATE_STYLES } from "@/components/state-badge";
import { STATES, type JobState } from "@/lib/fsm/table";
import type { JobFilters } from "@/lib/jobs/filters";
import type { StateCounts } from "@/lib/jobs/queries";

const approx = new Intl.NumberFormat("en-US", { notation: "compact", maximumFractionDigits: 1 });
import { refilteredHref } from "./url";

/** One tab per state in the machine's order, plus "All", each with its count under the other filters. */
export function StateTabs({ filters, counts }: { filters: JobFilters; counts: StateCounts | null }) {
  const anyCapped = counts ? STATES.some((s) => counts[s].capped) : false;
  const total = counts ? STATES.reduce((sum, s) => sum + (counts[s].estimate ?? counts[s].n), 0) : null;
  // "≈" when every capped state has an estimate; "+" (at least) when one only has its lower bound.
  const totalEstimated = counts ? STATES.every((s) => !counts[s].capped || counts[s].estimate !== undefined) : false;
  return (
    <nav aria-label="Job states" className="-mb-px overflow-x-auto border-b border-neutral-200">
      <ul className="flex min-w-max gap-0.5 text-sm">
        <Tab href={refilteredHref(filters, { state: undefined })} label="All" isCurrent={!filters.state} n={total} capped={anyCapped} estimated={totalEstimated} />
        {STATES.map((state) => (
          <Tab
            key={state}
            href={refilteredHref(filters, { state })}
            label={state}
            state={state}
            isCurrent={filters.state === state}
            n={counts ? (counts[state].estimate ?? counts[state].n) : null}
            capped={counts ? counts[state].capped : false}
            estimated={counts?.[state].estimate !== undefined}
          />
        ))}
      </ul>
    </nav>
  );
}

type TabProps = { href: string; label: string; state?: JobState; isCurrent: boolean; n: number | null; capped: boolean; estimated: boolean };

function Tab({ href, label, state, isCurrent, n, capped, estimated }: TabProps) {
  // Above the exact-count cap: the planner's estimate ("≈ 1.2M"), or the lower bound ("1,000+").
  const figure = n === null ? "—" : !capped ? numbers.format(n) : estimated ? `≈ ${approx.format(n)}` : `${numbers.format(n)}+`;
  return (
    <li>
      {/* No prefetch: each tab is a list query and nine counts on the server, and the data is live anyway. */}
      <Link
        href={href}
        prefetch={false}
        aria-current={isCurrent ? "page" : undefined}
        aria-label={`${label}: ${figure}${capped ? (estimated ? " (estimated)" : " (at least)") : ""}`}
        className={`flex items-center gap-1 rounded-t-md border-b-2 px-1.5 py-2 font-medium focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-neutral-900 ${
          isCurrent ? "border-neutral-900 text-neutral-900" : "border-transparent text-neutral-500 hover:border-neutral-300 hover:text-neutral-800"
        }`}
      >
        {state && <span aria-hidden="true" className={`size-2 rounded-full ${STATE_STYLES[state].swatch}`} />}
        <span className={state ? "font-mono text-xs" : ""}>{label}</span>
        <span
          title={
            !capped ? undefined
            : estimated ? `About ${numbers.format(n ?? 0)}: PostgreSQL's estimate (large counts are estimated so the page stays fast at any size)`
            : `At least ${numbers.format(n ?? 0)}: counting stops there so the page stays fast`
          }
          className={`rounded-full px-1.5 text-xs leading-5 tabular-nums ${isCurrent ? "bg-neutral-900 text-white" : "bg-neutral-100 text-neutral-600"}`}
        >
          {figure}
        </span>
      </Link>
    </li>
  );
}
