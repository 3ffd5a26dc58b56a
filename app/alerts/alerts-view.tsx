"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState, type ComponentProps, type FormEvent, type ReactNode } from "react";
import { Field, INPUT, SECONDARY } from "@/components/fields";
import { TextField } from "@/components/form-field";
import { Options } from "@/components/options";
import { CreateFooter } from "@/components/submit-button";
import { LocalTime } from "@/components/time-zone";
import { liveStatus, QueryLoadError } from "@/components/live-query";
import { PageHeader, useLive } from "@/components/page-header";
import type { AlertKind } from "@/lib/alerts/rules";
import { alertsQuery, keys } from "@/lib/client/queries";
import type { AlertsResponse } from "@/lib/client/wire";
import { ResultNote, RowFailure, useAction } from "@/components/use-action";
import { createAlertRuleAction, sendTestAlertAction, setAlertRuleEnabledAction } from "./actions";

type Rule = AlertsResponse["rules"][number];

const KINDS: { kind: AlertKind; label: string; staffOnly: boolean }[] = [
  { kind: "job_dead", label: "A job went dead", staffOnly: false },
  { kind: "poison_suspect", label: "A poison-job suspect appeared", staffOnly: true },
  { kind: "drift_rejection", label: "A drift rejection", staffOnly: true },
  { kind: "queue_oldest_due", label: "A queue's oldest due job is older than N s", staffOnly: true },
  { kind: "type_failure_rate", label: "A type's failure rate is over N% in M min", staffOnly: true },
];
/** The delivery history moves by itself (retries, firing rules). */
const POLL_MS = 5_000;
/** What an alert action changes: the rules and their deliveries. */
const CHANGED = { invalidate: [keys.alerts()] };

function condition(r: Rule): string {
  switch (r.kind) {
    case "job_dead":
      return `dead jobs${r.queue ? ` in ${r.queue}` : ""}${r.type ? ` of ${r.type}` : ""}${r.tenantId ? ` of tenant ${r.tenantId}` : ""}`;
    case "poison_suspect":
      return "a job lost its worker twice or more";
    case "drift_rejection":
      return "any drift rejection";
    case "queue_oldest_due":
      return `oldest due job in ${r.queue} older than ${r.threshold} s`;
    case "type_failure_rate":
      return `${r.type}: over ${r.threshold}% failed in ${r.windowMinutes} min`;
  }
}

/** A rule's required number, from 1 up to `max`. */
function NumberField(props: ComponentProps<typeof TextField>) {
  return <TextField required type="number" min={1} {...props} />;
}

/** One of the page's titled tables (its rows are the children; `actions`: a last column of buttons), or what `empty` says when it has none. */
function TableSection(props: {
  id: string;
  title: string;
  headers: string[];
  actions?: boolean;
  empty: string | false;
  after?: ReactNode;
  children: ReactNode;
}) {
  const { id, title, headers, actions, empty, after, children } = props;
  return (
    <section aria-labelledby={id} className="space-y-2">
      <h2 id={id} className="text-base font-semibold text-neutral-900">
        {title}
      </h2>
      {empty ? (
        <p className="text-sm text-neutral-600">{empty}</p>
      ) : (
        <div className="overflow-x-auto rounded-lg border border-neutral-200 bg-white">
          <table className="w-full text-left text-sm">
            <thead className="bg-neutral-50 text-xs text-neutral-600">
              <tr>
                {headers.map((h) => (
                  <th key={h} className="px-3 py-2 font-medium">
                    {h}
                  </th>
                ))}
                {actions && (
                  <th className="px-3 py-2 font-medium">
                    <span className="sr-only">Actions</span>
                  </th>
                )}
              </tr>
            </thead>
            <tbody>{children}</tbody>
          </table>
        </div>
      )}
      {after}
    </section>
  );
}

/** Rules, a form for a new one, and every alert sent with its delivery job's attempts. */
export function AlertsView({
  initial,
  renderedAt,
  isTenant,
  types,
}: {
  initial: AlertsResponse | null;
  renderedAt: number;
  isTenant: boolean;
  types: string[];
}) {
  const live = useLive(POLL_MS);
  const query = useQuery({ ...alertsQuery(), initialData: initial ?? undefined, initialDataUpdatedAt: renderedAt, ...live.poll });
  const data = query.data;
  const create = useAction(createAlertRuleAction, CHANGED);
  const toggle = useAction(setAlertRuleEnabledAction, CHANGED);
  const test = useAction(sendTestAlertAction, CHANGED);
  const [kind, setKind] = useState<AlertKind>("job_dead");
  const [secret, setSecret] = useState<string | null>(null);
  const kinds = KINDS.filter((k) => !isTenant || !k.staffOnly);

  function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const text = (k: string) => String(f.get(k) ?? "").trim();
    const optional = (k: string) => (text(k) ? text(k) : undefined);
    setSecret(null);
    create.run(
      {
        kind,
        name: text("name"),
        url: text("url"),
        queue: optional("queue"),
        type: optional("type"),
        threshold: optional("threshold"),
        windowMinutes: optional("windowMinutes"),
      },
      (d) => setSecret(d.secret),
    );
  }

  return (
    <div className="space-y-6">
      <PageHeader
        title="Alerts"
        description={
          isTenant
            ? "A webhook for your tenant's dead jobs. Each alert is a signed POST (Jobscope-Signature: t=…,v1=HMAC-SHA256 of “t.body”), delivered by a job of Jobscope's own: retried with backoff, shown below with every attempt."
            : "Rules evaluated by the supervisor every few seconds. Each alert is a signed POST (Jobscope-Signature: t=…,v1=HMAC-SHA256 of “t.body”) delivered by a jobscope.webhook job: retried with backoff, visible and replayable like any job."
        }
        live={liveStatus(live, query, { serverNow: renderedAt })}
      />

      <form onSubmit={submit} aria-label="New alert rule" className="space-y-4 rounded-lg border border-neutral-200 bg-white p-4 shadow-xs">
        <div className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4">
          <Field id="alert-kind" label="When">
            <select id="alert-kind" value={kind} onChange={(e) => setKind(e.currentTarget.value as AlertKind)} className={INPUT}>
              <Options of={kinds} value={(k) => k.kind} label={(k) => k.label} />
            </select>
          </Field>
          <Field id="alert-name" label="Name">
            <input id="alert-name" name="name" required maxLength={100} className={INPUT} placeholder="dead exports" />
          </Field>
          <Field id="alert-url" label="Webhook URL">
            <input
              id="alert-url"
              name="url"
              required
              type="url"
              maxLength={2000}
              className={`${INPUT} font-mono`}
              placeholder="https://hooks.example.com/jobscope"
            />
          </Field>
          {(kind === "job_dead" || kind === "queue_oldest_due") && (
            <Field id="alert-queue" label="Queue" hint={kind === "job_dead" ? "(empty: every queue)" : undefined}>
              <input id="alert-queue" name="queue" required={kind === "queue_oldest_due"} className={`${INPUT} font-mono`} placeholder="default" />
            </Field>
          )}
          {(kind === "job_dead" || kind === "type_failure_rate") && (
            <Field id="alert-type" label="Job type" hint={kind === "job_dead" ? "(empty: every type)" : undefined}>
              <select id="alert-type" name="type" required={kind === "type_failure_rate"} defaultValue="" className={INPUT}>
                <option value="">{kind === "job_dead" ? "Every type" : "Choose a type"}</option>
                <Options of={types} />
              </select>
            </Field>
          )}
          {kind === "queue_oldest_due" && (
            <NumberField id="alert-threshold" name="threshold" label="Older than" hint="(seconds)" max={604800} step={1} defaultValue={300} />
          )}
          {kind === "type_failure_rate" && (
            <>
              <NumberField id="alert-threshold" name="threshold" label="Failure rate over" hint="(%)" max={100} step="any" defaultValue={20} />
              <NumberField id="alert-window" name="windowMinutes" label="In the last" hint="(minutes)" max={1440} step={1} defaultValue={15} />
            </>
          )}
        </div>
        <CreateFooter pending={create.pending} label="Create alert rule">
          <ResultNote result={create.result} />
          {secret && (
            <p className="rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900">
              Signing secret (shown once): <code className="font-mono break-all select-all">{secret}</code>
            </p>
          )}
        </CreateFooter>
      </form>

      <QueryLoadError
        query={query}
        refreshing="Could not refresh the alert rules; showing the last ones received."
        loading="Could not read the alert rules."
      />

      {data && (
        <TableSection
          id="rules-heading"
          title="Rules"
          headers={["Name", "When", "Webhook", "State"]}
          actions
          empty={data.rules.length === 0 && "No alert rule yet."}
          after={<ResultNote result={test.result} />}
        >
          {data.rules.map((r) => (
            <tr key={r.id} className="border-t border-neutral-100 align-top">
              <td className="px-3 py-2 font-medium text-neutral-900">{r.name}</td>
              <td className="px-3 py-2 text-neutral-700">{condition(r)}</td>
              <td className="max-w-xs truncate px-3 py-2 font-mono text-xs text-neutral-700" title={r.url}>
                {r.url}
              </td>
              <td className="px-3 py-2 text-neutral-700">{!r.enabled ? "disabled" : r.firing ? "firing" : "enabled"}</td>
              <td className="space-y-1 px-3 py-2 text-right whitespace-nowrap">
                <div className="flex justify-end gap-2">
                  <button type="button" className={SECONDARY} disabled={test.pending || !r.enabled} onClick={() => test.run({ id: r.id })}>
                    Send test
                  </button>
                  <button type="button" className={SECONDARY} disabled={toggle.pending} onClick={() => toggle.run({ id: r.id, enabled: !r.enabled })}>
                    {r.enabled ? "Disable" : "Enable"}
                  </button>
                </div>
                <RowFailure result={toggle.result} />
              </td>
            </tr>
          ))}
        </TableSection>
      )}

      {data && (
        <TableSection
          id="deliveries-heading"
          title="Delivery history"
          headers={["At", "Rule", "Alert", "Delivery", "Attempts"]}
          empty={data.deliveries.length === 0 && "No alert sent yet."}
        >
          {data.deliveries.map((d) => (
            <tr key={d.eventId} className="border-t border-neutral-100 align-top">
              <td className="px-3 py-2 font-mono text-xs whitespace-nowrap text-neutral-700">
                <LocalTime at={new Date(d.at)} />
              </td>
              <td className="px-3 py-2 text-neutral-900">{d.ruleName}</td>
              <td className="max-w-md px-3 py-2 text-neutral-700">{d.summary}</td>
              <td className="px-3 py-2 whitespace-nowrap">
                {d.jobId ? (
                  <Link href={`/jobs/${d.jobId}`} className="text-neutral-900 underline underline-offset-2">
                    {d.state ?? "job"}
                    {d.attempt !== null && d.maxAttempts !== null ? ` (attempt ${d.attempt} of ${d.maxAttempts})` : ""}
                  </Link>
                ) : (
                  "—"
                )}
              </td>
              <td className="px-3 py-2 text-xs text-neutral-700">
                {d.attempts.length === 0
                  ? "not tried yet"
                  : d.attempts.map((a) => (
                      <div key={a.attempt}>
                        #{a.attempt} {a.outcome}
                        {a.error ? ` — ${a.error}` : ""}
                      </div>
                    ))}
              </td>
            </tr>
          ))}
        </TableSection>
      )}
    </div>
  );
}
