"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useState, type FormEvent } from "react";
import { Field, INPUT, PRIMARY, SECONDARY } from "@/app/jobs/_components/fields";
import { LocalTime } from "@/components/time-zone";
import type { AlertDelivery, AlertKind, AlertRule } from "@/lib/alerts/rules";
import { ResultNote, RowFailure, useOperate } from "../_operate/use-operate";
import { createAlertRuleAction, sendTestAlertAction, setAlertRuleEnabledAction } from "./actions";

type Json<T> = { [K in keyof T]: T[K] extends Date ? string : T[K] extends Date | null ? string | null : T[K] };
export type AlertsData = { rules: Json<AlertRule>[]; deliveries: Json<AlertDelivery>[] };

const KINDS: { kind: AlertKind; label: string; staffOnly: boolean }[] = [
  { kind: "job_dead", label: "A job went dead", staffOnly: false },
  { kind: "poison_suspect", label: "A poison-job suspect appeared", staffOnly: true },
  { kind: "drift_rejection", label: "A drift rejection", staffOnly: true },
  { kind: "queue_oldest_due", label: "A queue's oldest due job is older than N s", staffOnly: true },
  { kind: "type_failure_rate", label: "A type's failure rate is over N% in M min", staffOnly: true },
];
const REFRESH = ["alerts"];

function condition(r: Json<AlertRule>): string {
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

/** Rules, a form for a new one, and every alert sent with its delivery job's attempts. */
export function AlertsView({ data, isTenant, types }: { data: AlertsData | null; isTenant: boolean; types: string[] }) {
  const router = useRouter();
  const create = useOperate(createAlertRuleAction, REFRESH);
  const toggle = useOperate(setAlertRuleEnabledAction, REFRESH);
  const test = useOperate(sendTestAlertAction, REFRESH);
  const [kind, setKind] = useState<AlertKind>("job_dead");
  const [secret, setSecret] = useState<string | null>(null);
  const kinds = KINDS.filter((k) => !isTenant || !k.staffOnly);
  // The delivery history moves by itself (retries, firing rules): the page re-reads it every 5 s while visible.
  useEffect(() => {
    const timer = setInterval(() => {
      if (document.visibilityState === "visible") router.refresh();
    }, 5_000);
    return () => clearInterval(timer);
  }, [router]);

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
      (d) => {
        setSecret(d.secret);
        router.refresh();
      },
    );
  }

  return (
    <div className="space-y-6">
      <header className="space-y-1">
        <h1 className="text-xl font-semibold text-neutral-900">Alerts</h1>
        <p className="max-w-3xl text-sm text-neutral-600">
          {isTenant
            ? "A webhook for your tenant's dead jobs. Each alert is a signed POST (Jobscope-Signature: t=…,v1=HMAC-SHA256 of “t.body”), delivered by a job of Jobscope's own: retried with backoff, shown below with every attempt."
            : "Rules evaluated by the supervisor every few seconds. Each alert is a signed POST (Jobscope-Signature: t=…,v1=HMAC-SHA256 of “t.body”) delivered by a jobscope.webhook job: retried with backoff, visible and replayable like any job."}
        </p>
      </header>

      <form onSubmit={submit} aria-label="New alert rule" className="space-y-4 rounded-lg border border-neutral-200 bg-white p-4 shadow-xs">
        <div className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4">
          <Field id="alert-kind" label="When">
            <select id="alert-kind" value={kind} onChange={(e) => setKind(e.currentTarget.value as AlertKind)} className={INPUT}>
              {kinds.map((k) => (
                <option key={k.kind} value={k.kind}>
                  {k.label}
                </option>
              ))}
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
                {types.map((t) => (
                  <option key={t} value={t}>
                    {t}
                  </option>
                ))}
              </select>
            </Field>
          )}
          {kind === "queue_oldest_due" && (
            <Field id="alert-threshold" label="Older than" hint="(seconds)">
              <input
                id="alert-threshold"
                name="threshold"
                required
                type="number"
                min={1}
                max={604800}
                step={1}
                defaultValue={300}
                className={INPUT}
              />
            </Field>
          )}
          {kind === "type_failure_rate" && (
            <>
              <Field id="alert-threshold" label="Failure rate over" hint="(%)">
                <input
                  id="alert-threshold"
                  name="threshold"
                  required
                  type="number"
                  min={1}
                  max={100}
                  step="any"
                  defaultValue={20}
                  className={INPUT}
                />
              </Field>
              <Field id="alert-window" label="In the last" hint="(minutes)">
                <input
                  id="alert-window"
                  name="windowMinutes"
                  required
                  type="number"
                  min={1}
                  max={1440}
                  step={1}
                  defaultValue={15}
                  className={INPUT}
                />
              </Field>
            </>
          )}
        </div>
        <div className="flex flex-wrap items-center justify-between gap-3">
          <div className="min-w-0 flex-1 space-y-2">
            <ResultNote result={create.result} />
            {secret && (
              <p className="rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900">
                Signing secret (shown once): <code className="font-mono break-all select-all">{secret}</code>
              </p>
            )}
          </div>
          <button type="submit" disabled={create.pending} className={PRIMARY}>
            {create.pending ? "Creating…" : "Create alert rule"}
          </button>
        </div>
      </form>

      {!data && (
        <p role="alert" className="text-sm text-red-800">
          Could not read the alert rules: the database did not answer. Details are in the server log.
        </p>
      )}

      {data && (
        <section aria-labelledby="rules-heading" className="space-y-2">
          <h2 id="rules-heading" className="text-base font-semibold text-neutral-900">
            Rules
          </h2>
          {data.rules.length === 0 ? (
            <p className="text-sm text-neutral-600">No alert rule yet.</p>
          ) : (
            <div className="overflow-x-auto rounded-lg border border-neutral-200 bg-white">
              <table className="w-full text-left text-sm">
                <thead className="bg-neutral-50 text-xs text-neutral-600">
                  <tr>
                    <th className="px-3 py-2 font-medium">Name</th>
                    <th className="px-3 py-2 font-medium">When</th>
                    <th className="px-3 py-2 font-medium">Webhook</th>
                    <th className="px-3 py-2 font-medium">State</th>
                    <th className="px-3 py-2 font-medium">
                      <span className="sr-only">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
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
                          <button
                            type="button"
                            className={SECONDARY}
                            disabled={test.pending || !r.enabled}
                            onClick={() => test.run({ id: r.id }, () => router.refresh())}
                          >
                            Send test
                          </button>
                          <button
                            type="button"
                            className={SECONDARY}
                            disabled={toggle.pending}
                            onClick={() => toggle.run({ id: r.id, enabled: !r.enabled }, () => router.refresh())}
                          >
                            {r.enabled ? "Disable" : "Enable"}
                          </button>
                        </div>
                        <RowFailure result={toggle.result} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          <ResultNote result={test.result} />
        </section>
      )}

      {data && (
        <section aria-labelledby="deliveries-heading" className="space-y-2">
          <h2 id="deliveries-heading" className="text-base font-semibold text-neutral-900">
            Delivery history
          </h2>
          {data.deliveries.length === 0 ? (
            <p className="text-sm text-neutral-600">No alert sent yet.</p>
          ) : (
            <div className="overflow-x-auto rounded-lg border border-neutral-200 bg-white">
              <table className="w-full text-left text-sm">
                <thead className="bg-neutral-50 text-xs text-neutral-600">
                  <tr>
                    <th className="px-3 py-2 font-medium">At</th>
                    <th className="px-3 py-2 font-medium">Rule</th>
                    <th className="px-3 py-2 font-medium">Alert</th>
                    <th className="px-3 py-2 font-medium">Delivery</th>
                    <th className="px-3 py-2 font-medium">Attempts</th>
                  </tr>
                </thead>
                <tbody>
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
                </tbody>
              </table>
            </div>
          )}
        </section>
      )}
    </div>
  );
}
