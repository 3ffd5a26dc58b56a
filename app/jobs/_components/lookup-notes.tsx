"use client";

import Link from "next/link";
import { useTimeZone } from "@/components/time-zone";
import type { FilterProblem, JobFilters } from "@/lib/jobs/filters";
import { parsePhrase } from "@/lib/jobs/phrase";
import type { TenantOption } from "@/lib/jobs/tenant-pick";
import type { IdPiece } from "@/lib/uuid";
import { jobsHref } from "./url";

const NOTE = "rounded-lg border px-4 py-2.5 text-sm";

/** The filters of the link that were not applied (or cannot match), each in words, and the link without them. */
export function FilterProblems({ problems, filters }: { problems: readonly FilterProblem[]; filters: JobFilters }) {
  if (problems.length === 0) return null;
  const dropped = problems.filter((p) => p.dropped);
  const kept = problems.filter((p) => !p.dropped);
  return (
    <div role="alert" className={`${NOTE} space-y-1 border-amber-200 bg-amber-50 text-amber-950`}>
      {dropped.length > 0 && (
        <>
          <p className="font-medium">
            {dropped.length === 1 ? "A filter in this link was not applied" : `${dropped.length} filters in this link were not applied`}; the list
            below is without {dropped.length === 1 ? "it" : "them"}:
          </p>
          <ul className="list-inside list-disc">
            {dropped.map((p) => (
              <li key={p.key}>{p.message}</li>
            ))}
          </ul>
        </>
      )}
      {kept.map((p) => (
        <p key={p.key} className="font-medium">
          {p.message}.
        </p>
      ))}
      {dropped.length > 0 && (
        <p>
          <Link href={jobsHref(filters)} prefetch={false} className="text-amber-900 underline underline-offset-2">
            Open the link without {dropped.length === 1 ? "it" : "them"}
          </Link>
        </p>
      )}
    </div>
  );
}

/** How the lookup read a phrase: each word it understood and as what, and the words it did not. */
export function PhraseEcho({ phrase, tenants, types }: { phrase: string; tenants: readonly TenantOption[]; types: readonly string[] }) {
  const timeZone = useTimeZone();
  // Read again only for the words: the filters themselves are the URL's (a date preset was fixed when it was typed).
  const reading = parsePhrase(phrase, { tenants, types, now: 0, timeZone });
  if (!reading) return null;
  return (
    <div role="note" aria-label="How the search was read" className={`${NOTE} border-sky-200 bg-sky-50 text-sky-950`}>
      <p>
        Read <q className="font-medium">{phrase}</q> as{" "}
        {reading.read.map((r, i) => (
          <span key={`${r.word}-${i}`}>
            {i > 0 && " · "}
            <strong className="font-medium">{r.as}</strong> <span className="text-sky-800">({r.word})</span>
          </span>
        ))}
        .
      </p>
      {reading.ignored.length > 0 && (
        <p className="mt-1">
          Ignored {reading.ignored.length === 1 ? "the word" : "the words"}{" "}
          {reading.ignored.map((w, i) => (
            <span key={`${w}-${i}`}>
              {i > 0 && ", "}
              <q className="font-medium">{w}</q>
            </span>
          ))}
          : {reading.ignored.length === 1 ? "it names" : "they name"} no tenant, type, state or date the list knows.
        </p>
      )}
      <p className="mt-1">
        <Link href={jobsHref({ q: phrase })} prefetch={false} className="text-sky-800 underline underline-offset-2">
          Look the whole text up as an id or idempotency key instead
        </Link>
      </p>
    </div>
  );
}

/** A job id with the part a lookup matched marked, and which end it was; "idempotency key" when the id did not match. */
export function MatchedId({ id, piece }: { id: string; piece: IdPiece }) {
  const hex = id.replace(/-/g, "");
  const starts = piece.prefix !== null && hex.startsWith(piece.hex);
  const ends = piece.suffix !== null && hex.endsWith(piece.hex);
  if (!starts && !ends) return <span className="block text-xs text-neutral-600">matched its idempotency key</span>;
  // Where the matched digits lie in the id's text (dashes included).
  const textLength = (digits: number, fromEnd: boolean) => {
    const s = fromEnd ? [...id].reverse() : [...id];
    let n = 0;
    let i = 0;
    while (n < digits && i < s.length) if (s[i++] !== "-") n++;
    return i;
  };
  const head = starts ? textLength(piece.hex.length, false) : 0;
  const tail = ends && !starts ? textLength(piece.hex.length, true) : 0;
  return (
    <span className="block font-mono text-xs break-all text-neutral-700" aria-label={`id ${starts ? "starts" : "ends"} with ${piece.hex}`}>
      {starts ? (
        <>
          <mark className="rounded-sm bg-amber-200 text-neutral-900">{id.slice(0, head)}</mark>
          {id.slice(head)}
        </>
      ) : (
        <>
          {id.slice(0, id.length - tail)}
          <mark className="rounded-sm bg-amber-200 text-neutral-900">{id.slice(id.length - tail)}</mark>
        </>
      )}
      <span className="ml-1 font-sans text-neutral-600">({starts ? "start" : "end"} of the id)</span>
    </span>
  );
}
