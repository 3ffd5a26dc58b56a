"use client";

import { useState, type ReactNode } from "react";
import { useCopy } from "./use-copy";

// A read-only, collapsible view of JSON that came from outside (params, results,
// event payloads). Every value is rendered as plain React text, so markup in it
// stays inert. Long strings and long arrays or objects are cut, with "show all".

const MAX_STRING = 280;
const MAX_ENTRIES = 50;
/** Containers deeper than this start collapsed. */
const OPEN_DEPTH = 2;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export function JsonViewer({ value, label }: { value: unknown; label: string }) {
  const { copied, copy } = useCopy();
  const text = JSON.stringify(value, null, 2) ?? "undefined";
  return (
    <div className="relative rounded-md border border-neutral-200 bg-neutral-50">
      <button
        type="button"
        onClick={() => void copy(text)}
        className="absolute top-2 right-2 rounded border border-neutral-300 bg-white px-2 py-0.5 text-xs font-medium text-neutral-600 hover:bg-neutral-100"
        aria-label={`Copy ${label} as JSON`}
      >
        {copied ? "Copied" : "Copy"}
      </button>
      <div role="group" aria-label={label} className="overflow-x-auto p-3 pr-16 font-mono text-xs leading-5 text-neutral-800">
        {/* The value came out of JSONB or a JSON response, so it is JSON-shaped (or undefined, shown as such). */}
        <Node value={value as Json} depth={0} />
      </div>
    </div>
  );
}

function Node({ value, depth, name }: { value: Json; depth: number; name?: ReactNode }) {
  const key = name !== undefined && (
    <>
      <span className="text-neutral-600">{name}</span>
      <span className="text-neutral-600">: </span>
    </>
  );
  if (Array.isArray(value) || (value !== null && typeof value === "object")) {
    return <Container value={value} depth={depth} keyLabel={key} />;
  }
  return (
    <div className="break-words">
      {key}
      <Scalar value={value} />
    </div>
  );
}

function Scalar({ value }: { value: null | boolean | number | string | undefined }) {
  const [isFull, setIsFull] = useState(false);
  if (value === undefined) return <span className="text-neutral-600">undefined</span>;
  if (value === null) return <span className="text-violet-700">null</span>;
  if (typeof value === "boolean") return <span className="text-violet-700">{String(value)}</span>;
  if (typeof value === "number") return <span className="text-sky-700">{value}</span>;
  const isLong = value.length > MAX_STRING;
  return (
    <>
      <span className="whitespace-pre-wrap text-emerald-800">&quot;{isLong && !isFull ? `${value.slice(0, MAX_STRING)}…` : value}&quot;</span>
      {isLong && (
        <button type="button" onClick={() => setIsFull((f) => !f)} className="ml-2 font-sans text-xs font-medium text-blue-700 underline">
          {isFull ? "show less" : `show all ${value.length.toLocaleString("en-US")} characters`}
        </button>
      )}
    </>
  );
}

function Container({ value, depth, keyLabel }: { value: Json[] | { [key: string]: Json }; depth: number; keyLabel: ReactNode }) {
  const [showAll, setShowAll] = useState(false);
  const isArray = Array.isArray(value);
  const entries: [string, Json][] = isArray ? value.map((v, i) => [String(i), v]) : Object.entries(value);
  const [open, close] = isArray ? ["[", "]"] : ["{", "}"];
  if (entries.length === 0) {
    return (
      <div>
        {keyLabel}
        <span className="text-neutral-600">{`${open}${close}`}</span>
      </div>
    );
  }
  const shown = showAll ? entries : entries.slice(0, MAX_ENTRIES);
  const count = `${entries.length} ${isArray ? (entries.length === 1 ? "item" : "items") : entries.length === 1 ? "key" : "keys"}`;
  return (
    <details open={depth < OPEN_DEPTH} className="group">
      <summary className="cursor-pointer list-none rounded-sm hover:bg-neutral-100 [&::-webkit-details-marker]:hidden">
        <span aria-hidden="true" className="inline-block w-3 text-neutral-400 transition-transform group-open:rotate-90">
          ▸
        </span>
        {keyLabel}
        <span className="text-neutral-600">{open}</span>
        <span className="text-neutral-600 group-open:hidden">
          {" "}
          {count} {close}
        </span>
      </summary>
      <div className="ml-[0.3rem] border-l border-neutral-200 pl-4">
        {shown.map(([k, v]) => (
          <Node key={k} value={v} depth={depth + 1} name={isArray ? k : JSON.stringify(k)} />
        ))}
        {entries.length > shown.length && (
          <button type="button" onClick={() => setShowAll(true)} className="font-sans text-xs font-medium text-blue-700 underline">
            show all {count}
          </button>
        )}
      </div>
      <span className="ml-3 text-neutral-600">{close}</span>
    </details>
  );
}
