import Link from "next/link";
import { HISTORY_RANGE_KEYS, type HistoryRange } from "@/lib/metrics/history";

/** The range of a history page, as links (the range lives in the URL: share it). */
export function RangeLinks({ base, range }: { base: string; range: HistoryRange }) {
  return (
    <nav aria-label="Range" className="inline-flex rounded-md border border-neutral-300 bg-white p-0.5 text-sm shadow-xs">
      {HISTORY_RANGE_KEYS.map((r) => (
        <Link
          key={r}
          href={`${base}?range=${r}`}
          aria-current={r === range ? "page" : undefined}
          className={`rounded px-3 py-1 font-medium ${r === range ? "bg-neutral-900 text-white" : "text-neutral-700 hover:bg-neutral-100"}`}
        >
          {r}
        </Link>
      ))}
    </nav>
  );
}
