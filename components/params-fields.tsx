"use client";

import { Field, INPUT } from "@/components/fields";
import type { ParamField } from "@/lib/jobs/param-fields";
import type { InputIssue } from "@/lib/result";

/** A problem with one field of the params ("" for the params as a whole), as the server's check names it. */
const fieldId = (prefix: string, name: string) => `${prefix}-p-${name}`;
const JSON_FIELD = "__params_json";

/**
 * The inputs of a job type's params, drawn from its schema (lib/jobs/param-fields.ts): a select for a
 * choice, a number input for a number, a checkbox for a flag, JSON for anything else — or one JSON
 * box for the whole params when the schema names no fields. Each field shows its own problem from
 * the server's check (`issues`); the browser does not validate (`noValidate` on the form), so every
 * rule is the schema's, said once.
 */
export function ParamsFields({
  idPrefix,
  fields,
  initial,
  issues,
}: {
  idPrefix: string;
  fields: readonly ParamField[] | null;
  initial: Record<string, unknown> | null;
  issues: readonly InputIssue[];
}) {
  const issueOf = (name: string) => issues.find((i) => i.path === name || i.path.startsWith(`${name}.`));
  const general = issues.filter((i) => !fields?.some((f) => i.path === f.name || i.path.startsWith(`${f.name}.`)));
  if (!fields) {
    const id = fieldId(idPrefix, JSON_FIELD);
    return (
      <div className="space-y-1">
        <Field id={id} label="Params" hint="(JSON)">
          <textarea
            id={id}
            name={id}
            rows={5}
            defaultValue={JSON.stringify(initial ?? {}, null, 2)}
            aria-invalid={general.length > 0 || undefined}
            className={`${INPUT} h-auto py-1 font-mono`}
          />
        </Field>
        <Problems issues={general} />
      </div>
    );
  }
  return (
    <div className="space-y-3">
      <div className="grid gap-3 sm:grid-cols-2">
        {fields.map((f) => {
          const id = fieldId(idPrefix, f.name);
          const issue = issueOf(f.name);
          const value = initial?.[f.name];
          const hint = [f.required ? "required" : f.default !== undefined ? `default ${JSON.stringify(f.default)}` : "optional", range(f)]
            .filter(Boolean)
            .join(", ");
          const common = {
            id,
            name: id,
            "aria-invalid": issue ? true : undefined,
            "aria-describedby": issue ? `${id}-problem` : undefined,
          } as const;
          return (
            <div key={f.name} className="space-y-1">
              {f.kind === "boolean" ? (
                <label htmlFor={id} className="flex items-center gap-2 pt-5 text-sm text-neutral-800">
                  <input type="checkbox" defaultChecked={value === undefined ? f.default === true : value === true} className="size-4" {...common} />
                  <span className="font-mono">{f.name}</span>
                </label>
              ) : (
                <Field id={id} label={f.name} hint={`(${hint})`}>
                  {f.kind === "choice" ? (
                    <select defaultValue={value === undefined ? "" : String(value)} className={INPUT} {...common}>
                      <option value="">{f.required ? "Choose…" : f.default !== undefined ? `(default: ${String(f.default)})` : "(none)"}</option>
                      {f.options!.map((o) => (
                        <option key={o} value={o}>
                          {o}
                        </option>
                      ))}
                    </select>
                  ) : f.kind === "json" ? (
                    <textarea
                      rows={3}
                      defaultValue={value === undefined ? "" : JSON.stringify(value, null, 2)}
                      className={`${INPUT} h-auto py-1 font-mono`}
                      {...common}
                    />
                  ) : (
                    <input
                      type={f.kind === "text" ? "text" : "number"}
                      step={f.kind === "integer" ? 1 : "any"}
                      min={f.min}
                      max={f.max}
                      maxLength={f.maxLength}
                      defaultValue={value === undefined || value === null ? "" : String(value)}
                      placeholder={f.default !== undefined ? String(f.default) : undefined}
                      className={`${INPUT} ${f.kind === "text" ? "" : "tabular-nums"}`}
                      {...common}
                    />
                  )}
                </Field>
              )}
              {issue && (
                <p id={`${id}-problem`} className="text-xs text-red-800">
                  {issue.message}
                </p>
              )}
            </div>
          );
        })}
      </div>
      <Problems issues={general} />
    </div>
  );
}

function Problems({ issues }: { issues: readonly InputIssue[] }) {
  if (issues.length === 0) return null;
  return (
    <ul role="alert" className="space-y-0.5 text-xs text-red-800">
      {issues.map((i, n) => (
        <li key={n}>
          {i.path ? <span className="font-mono">{i.path}: </span> : null}
          {i.message}
        </li>
      ))}
    </ul>
  );
}

function range(f: ParamField): string {
  if (f.min !== undefined && f.max !== undefined) return `${f.min} to ${f.max}`;
  if (f.min !== undefined) return `at least ${f.min}`;
  if (f.max !== undefined) return `at most ${f.max}`;
  return "";
}

/**
 * The params the inputs of `form` hold, as the schema's types (numbers as numbers, a flag as a
 * boolean); a field left empty is left out, so its default applies. What cannot be read (JSON that
 * does not parse, a required field left empty) is a problem on its field; the rest is for the server
 * to check.
 */
export function readParams(form: HTMLFormElement, idPrefix: string, fields: readonly ParamField[] | null): { params: unknown; issues: InputIssue[] } {
  const data = new FormData(form);
  const text = (name: string) => {
    const v = data.get(fieldId(idPrefix, name));
    return typeof v === "string" ? v : "";
  };
  const issues: InputIssue[] = [];
  const parseJson = (raw: string, path: string): unknown => {
    try {
      return JSON.parse(raw);
    } catch {
      issues.push({ path, message: "not valid JSON" });
      return undefined;
    }
  };
  if (!fields) {
    const raw = text(JSON_FIELD).trim();
    return { params: raw ? parseJson(raw, "") : {}, issues };
  }
  const params: Record<string, unknown> = {};
  for (const f of fields) {
    if (f.kind === "boolean") {
      params[f.name] = data.get(fieldId(idPrefix, f.name)) !== null;
      continue;
    }
    const raw = text(f.name);
    if (raw.trim() === "") {
      // The schema requires it (its JSON Schema says so): said here, in words, rather than as "received undefined".
      if (f.required) issues.push({ path: f.name, message: "required" });
      continue;
    }
    if (f.kind === "integer" || f.kind === "number") {
      const n = Number(raw);
      // Not a number: sent as typed, so the server's check names the field.
      params[f.name] = Number.isFinite(n) ? n : raw;
    } else if (f.kind === "json") {
      params[f.name] = parseJson(raw, f.name);
    } else {
      params[f.name] = raw;
    }
  }
  return { params, issues };
}
