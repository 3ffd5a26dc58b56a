"use client";

import { ActorCell, ExpectedVsCurrent, None } from "@/components/cells";
import { RejectionKindBadge } from "@/components/charts/rejection-kind";
import { DataTable, type Column } from "@/components/data-table";
import { formatRelative } from "@/lib/time-format";
import { LocalTime } from "@/components/time-zone";
import { StateBadge } from "@/components/state-badge";
import type { Audience } from "@/lib/insight/claims";
import type { EventRecord, RejectionRecord } from "@/lib/jobs/queries";
import { tenantEventWords, tenantWho } from "@/lib/insight/render";
import { ExpandableText } from "./expandable-text";
import { ShortTime } from "./run-records";
import { Card } from "@/components/charts/card";

/**
 * The job's event log as its audience reads it. Staff: every applied transition, oldest first, the log
 * the job's row is replayed from. A tenant: what happened, who did it and when, in their words.
 */
const EVENT_LOGS: Record<Audience, { title: string; noun: string; caption: string; columns: (now: number) => Column<EventRecord>[] }> = {
  staff: {
    title: "Event log",
    noun: "event",
    caption: "Transitions applied to this job, oldest first; times in your time zone",
    columns: (now) => [
      { header: "Version", isRowHeader: true, className: "font-semibold tabular-nums", cell: (e) => e.stateVersion },
      {
        header: "Transition",
        className: "whitespace-nowrap",
        cell: (e) => (
          <>
            {e.fromState ? <StateBadge state={e.fromState} /> : <span className="text-neutral-600">new</span>}
            <span aria-label="to" className="px-1.5 text-neutral-600">
              →
            </span>
            <StateBadge state={e.toState} />
          </>
        ),
      },
      { header: "Event", className: "font-mono", cell: (e) => e.event },
      { header: "Actor", cell: (e) => <ActorCell kind={e.actorKind} id={e.actorId} /> },
      { header: "Attempt", className: "tabular-nums", cell: (e) => e.attempt },
      { header: "Time", cell: (e) => <When at={e.at} now={now} /> },
      { header: "Details", className: "min-w-56", cell: (e) => <Payload payload={e.payload} version={e.stateVersion} /> },
    ],
  },
  tenant: {
    title: "History",
    noun: "step",
    caption: "What happened to this job, oldest first; times in your time zone",
    columns: (now) => [
      { header: "What happened", isRowHeader: true, cell: (e) => tenantEventWords(e) },
      { header: "Who", cell: (e) => tenantWho(e.actorKind, e.actorId) },
      { header: "Try", className: "tabular-nums", cell: (e) => (e.attempt > 0 ? e.attempt : <None />) },
      { header: "Time", cell: (e) => <When at={e.at} now={now} /> },
    ],
  },
};

/** The job's events in a card as `audience` reads them: those the page received (the newest, when the job has more), and how many there are. */
export function EventLog({ events, eventCount, now, audience }: { events: EventRecord[]; eventCount: number; now: number; audience: Audience }) {
  const { title, noun, caption, columns } = EVENT_LOGS[audience];
  const counted = `${eventCount} ${eventCount === 1 ? noun : `${noun}s`}`;
  return (
    <Card title={title} id="events" aside={events.length < eventCount ? `the newest ${events.length} of ${counted}` : counted}>
      <DataTable caption={caption} rows={events} rowKey={(e) => e.id} columns={columns(now)} />
    </Card>
  );
}

function Payload({ payload, version }: { payload: Record<string, unknown> | null; version: number }) {
  if (!payload) return <None />;
  const { error, retryAt, ...rest } = payload;
  const err = isError(error) ? error : null;
  const retry = typeof retryAt === "string" && !Number.isNaN(Date.parse(retryAt)) ? new Date(retryAt) : null;
  const others = Object.keys(rest).length > 0 || (error !== undefined && !err) ? JSON.stringify(err ? rest : { error, ...rest }) : null;
  return (
    <div className="space-y-1 text-xs">
      {err && (
        <>
          <p className="font-mono font-semibold text-red-800">{err.class}</p>
          <ExpandableText text={err.message} label={`the error of version ${version}`} />
        </>
      )}
      {retry && (
        <p className="text-neutral-700">
          retry at <LocalTime at={retry} />
        </p>
      )}
      {others && <p className="font-mono break-all text-neutral-600">{others}</p>}
    </div>
  );
}

/** A short time (the viewer's zone) with how long ago beneath it. */
function When({ at, now }: { at: Date; now: number }) {
  return (
    <>
      <ShortTime at={at} />
      <span className="block text-xs text-neutral-600">{formatRelative(at.getTime(), now)}</span>
    </>
  );
}

function isError(v: unknown): v is { class: string; message: string } {
  return typeof v === "object" && v !== null && "class" in v && "message" in v && typeof v.class === "string" && typeof v.message === "string";
}

/** The recent refused transitions on this job, newest first. */
export function Rejections({ rejections, now }: { rejections: RejectionRecord[]; now: number }) {
  return (
    <Card title="Rejections" id="rejections" aside={rejections.length === 50 ? "the newest 50" : undefined}>
      {rejections.length === 0 ? (
        <p className="text-sm text-neutral-600">No refused transitions on this job.</p>
      ) : (
        <DataTable
          caption="Refused transitions on this job, newest first; times in your time zone"
          rows={rejections}
          rowKey={(r) => r.id}
          columns={[
            { header: "Time", cell: (r) => <When at={r.at} now={now} /> },
            { header: "Kind", cell: (r) => <RejectionKindBadge kind={r.kind} /> },
            { header: "Event", className: "font-mono", cell: (r) => r.event },
            { header: "Actor", cell: (r) => <ActorCell kind={r.actorKind} id={r.actorId} /> },
            { header: "Expected → found", className: "text-xs", cell: (r) => <ExpectedVsCurrent r={r} /> },
            { header: "Reason", className: "min-w-64 text-xs text-neutral-800", cell: (r) => r.reason },
          ]}
        />
      )}
    </Card>
  );
}
