// Small cells that several tables share: one way to show a job id, an actor,
// a refused transition's expected and current state, and "nothing here".
import Link from "next/link";
import type { JobState } from "@/lib/fsm/table";
import { formatAgo } from "@/lib/time-format";
import { LongTime } from "./time-zone";
import { CopyId } from "./copy-id";
import { StateBadge } from "./state-badge";
import { shortId } from "@/lib/jobs/short-id";

/** No value: a dash, read as "none". */
export function None({ text = "none" }: { text?: string }) {
  return (
    <span className="text-neutral-600" aria-label={text}>
      —
    </span>
  );
}

/** A job's short id, linking to its page, with the full id as its title and a control that copies it. */
export function JobLink({ id }: { id: string }) {
  return (
    <span className="inline-flex items-center gap-0.5 whitespace-nowrap">
      {/* No prefetch: a table of fifty job links would fetch fifty pages and hold up the page's polls. */}
      <Link href={`/jobs/${id}`} prefetch={false} title={id} className="rounded font-mono text-xs font-medium text-sky-700 hover:underline">
        {shortId(id)}
      </Link>
      <CopyId id={id} />
    </span>
  );
}

/** Who did it: the kind of actor above its id. */
/** Who acted: their kind, and their id unless it was withheld (a tenant reads staff and workers by role only). */
export function ActorCell({ kind, id }: { kind: string; id: string }) {
  const role: Record<string, string> = { operator: "an operator", worker: "the system", supervisor: "the system" };
  return (
    <span className="block">
      <span className="block text-xs text-neutral-600">{id ? kind : (role[kind] ?? kind)}</span>
      {id && <span className="block font-mono text-xs break-all">{id}</span>}
    </span>
  );
}

type Versioned = { expectedState: JobState | null; expectedVersion: number | null; currentState: JobState | null; currentVersion: number | null };

/** A refused transition: the state and version the actor expected → what the job was. */
export function ExpectedVsCurrent({ r }: { r: Versioned }) {
  return (
    <span className="inline-flex flex-wrap items-center gap-1 whitespace-nowrap">
      {r.expectedState ? <StateBadge state={r.expectedState} /> : <None />}
      {r.expectedVersion !== null && <span className="text-neutral-600">v{r.expectedVersion}</span>}
      <span aria-label="then" className="px-0.5 text-neutral-600">
        →
      </span>
      {r.currentState ? <StateBadge state={r.currentState} /> : <None />}
      {r.currentVersion !== null && <span className="text-neutral-600">v{r.currentVersion}</span>}
    </span>
  );
}

/** "3 min ago" over "1 May 2026, 13:01:03 GMT+1" (the viewer's zone; UTC on hover), counted from `at` (a response's clock), both ISO strings. */
export function AgoOverTime({ at, now }: { at: string; now: string }) {
  return (
    <>
      <time dateTime={at} className="block">
        {formatAgo(Date.parse(now) - Date.parse(at))}
      </time>
      <LongTime at={new Date(at)} className="block text-xs whitespace-nowrap text-neutral-600 tabular-nums" />
    </>
  );
}
