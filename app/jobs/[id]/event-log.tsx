"use client";

import { formatRelative, formatUtc } from "@/components/relative-time";
import { StateBadge } from "@/components/state-badge";
import type { EventRecord, RejectionRecord } from "@/lib/jobs/queries";
import { ExpandableText } from "./expandable-text";
import { ShortTime, td, th } from "./run-records";
import { Section } from "./section";

/** Every applied transition, oldest first: the log the job's row is replayed from. */
export function EventLog({ events, eventCount, now }: { events: EventRecord[]; eventCount: number; now: number }) {
  const hidden = eventCount - events.length;
  return (
    <Section
      title="Event log"
      id="events"
      aside={hidden > 0 ? `the newest ${events.length} of ${eventCount} events` : `${eventCount} ${eventCount === 1 ? "event" : "events"}`}
    >
      <div className="overflow-x-auto">
        <table className="w-full text-sm">
          <caption className="sr-only">Transitions applied to this job, oldest first; times in UTC</caption>
          <thead className="border-b border-neutral-200">
            <tr>
              <th scope="col" className={th}>Version</th>
              <th scope="col" className={th}>Transition</th>
              <th scope="col" className={th}>Event</th>
              <th scope="col" className={th}>Actor</th>
              <th scope="col" className={th}>Attempt</th>
              <th scope="col" className={th}>Time</th>
              <th scope="col" className={th}>Details</th>
            </tr>
          </thead>
          <tbody className="divide-y divide-neutral-100">
            {events.map((e) => (
              <tr key={e.id}>
                <th scope="row" className={`${td} text-left font-semibold tabular-nums`}>{e.stateVersion}</th>
                <td className={`${td} whitespace-nowrap`}>
                  {e.fromState ? <StateBadge state={e.fromState} /> : <span className="text-neutral-400">new</span>}
                  <span aria-label="to" className="px-1.5 text-neutral-400">→</span>
                  <StateBadge state={e.toState} />
                </td>
                <td className={`${td} font-mono`}>{e.event}</td>
                <td className={td}>
                  <Actor kind={e.actorKind} id={e.actorId} />
                </td>
                <td className={`${td} tabular-nums`}>{e.attempt}</td>
                <td className={td}>
                  <ShortTime at={e.at} />
                  <span className="block text-xs text-neutral-500">{formatRelative(e.at.getTime(), now)}</span>
                </td>
                <td className={`${td} min-w-56`}>
                  <Payload payload={e.payload} version={e.stateVersion} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Section>
  );
}

function Payload({ payload, version }: { payload: Record<string, unknown> | null; version: number }) {
  if (!payload) return <span className="text-neutral-400">—</span>;
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
      {retry && <p className="text-neutral-600">retry at {formatUtc(retry)}</p>}
      {others && <p className="font-mono break-all text-neutral-600">{others}</p>}
    </div>
  );
}

function Actor({ kind, id }: { kind: string; id: string }) {
  return (
    <span className="block">
      <span className="block text-xs text-neutral-500">{kind}</span>
      <span className="block font-mono text-xs whitespace-nowrap">{id}</span>
    </span>
  );
}

function isError(v: unknown): v is { class: string; message: string } {
  return typeof v === "object" && v !== null && "class" in v && "message" in v && typeof v.class === "string" && typeof v.message === "string";
}

/** The recent refused transitions on this job, newest first. */
export function Rejections({ rejections, now }: { rejections: RejectionRecord[]; now: number }) {
  return (
    <Section title="Rejections" id="rejections" aside={rejections.length === 50 ? "the newest 50" : undefined}>
      {rejections.length === 0 ? (
        <p className="text-sm text-neutral-500">No refused transitions on this job.</p>
      ) : (
        <div className="overflow-x-auto">
          <table className="w-full text-sm">
            <caption className="sr-only">Refused transitions on this job, newest first; times in UTC</caption>
            <thead className="border-b border-neutral-200">
              <tr>
                <th scope="col" className={th}>Time</th>
                <th scope="col" className={th}>Kind</th>
                <th scope="col" className={th}>Event</th>
                <th scope="col" className={th}>Actor</th>
                <th scope="col" className={th}>Expected → found</th>
                <th scope="col" className={th}>Reason</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-neutral-100">
              {rejections.map((r) => (
                <tr key={r.id}>
                  <td className={td}>
                    <ShortTime at={r.at} />
                    <span className="block text-xs text-neutral-500">{formatRelative(r.at.getTime(), now)}</span>
                  </td>
                  <td className={td}>
                    <span
                      className={`rounded px-1.5 py-0.5 font-mono text-xs font-medium ${
                        r.kind === "drift" ? "bg-red-100 text-red-900" : r.kind === "conflict" ? "bg-amber-100 text-amber-900" : "bg-neutral-100 text-neutral-800"
                      }`}
                    >
                      {r.kind}
                    </span>
                  </td>
                  <td className={`${td} font-mono`}>{r.event}</td>
                  <td className={td}>
                    <Actor kind={r.actorKind} id={r.actorId} />
                  </td>
                  <td className={`${td} font-mono text-xs whitespace-nowrap`}>
                    {r.expectedState ? `${r.expectedState} v${r.expectedVersion ?? "?"}` : "—"} → {r.currentState ? `${r.currentState} v${r.currentVersion ?? "?"}` : "—"}
                  </td>
                  <td className={`${td} min-w-64 text-xs text-neutral-800`}>{r.reason}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Section>
  );
}
