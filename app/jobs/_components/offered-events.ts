import { eventsFor, isEventOf } from "@/lib/fsm/machine";
import { EVENTS, type ActorKind, type JobEvent, type JobState } from "@/lib/fsm/table";
// Type only: lib/jobs/bulk.ts is server code (the write path), kept out of the browser bundle.
import type { BulkEvent } from "@/lib/jobs/bulk";

/** The same test as lib/jobs/bulk.ts's BULK_EVENTS: an operator may apply it to an existing job. */
const isBulkEvent = (e: JobEvent): e is BulkEvent => isEventOf("operator", e);

/** The events that at least one job in these states could take from this actor, in the table's order. */
export function offeredEvents(states: Iterable<JobState>, actor: ActorKind): BulkEvent[] {
  const legal = new Set<JobEvent>();
  for (const s of states) for (const e of eventsFor(s, actor)) legal.add(e);
  return EVENTS.filter((e) => legal.has(e)).filter(isBulkEvent);
}
