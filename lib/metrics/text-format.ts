/**
 * A strict reader of the Prometheus text exposition format (0.0.4), for tests and for checking a
 * scrape by hand: every line is a HELP, a TYPE or a sample of the family its TYPE named; label
 * values are quoted and escaped; a histogram's buckets are cumulative, end with le="+Inf", and
 * that bucket equals its _count. Throws with the line number on the first problem.
 */
export type Sample = { name: string; labels: Record<string, string>; value: number };
export type Family = { name: string; help: string; type: string; samples: Sample[] };

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\["\\n])*)"(,|$)/y;

export function parseExposition(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  let current: Family | null = null;
  const lines = text.split("\n");
  if (lines.at(-1) !== "") throw new Error("the exposition must end with a newline");
  lines.forEach((line, i) => {
    const at = `line ${i + 1}: ${line}`;
    if (line === "") return;
    if (line.startsWith("# HELP ")) {
      const [, , n = "", ...help] = line.split(" ");
      if (!NAME.test(n)) throw new Error(`bad metric name, ${at}`);
      if (families.has(n)) throw new Error(`family declared twice, ${at}`);
      current = { name: n, help: help.join(" "), type: "untyped", samples: [] };
      families.set(n, current);
      return;
    }
    if (line.startsWith("# TYPE ")) {
      const [, , n, type] = line.split(" ");
      if (!current || current.name !== n) throw new Error(`TYPE without its HELP, ${at}`);
      if (!["counter", "gauge", "histogram", "summary", "untyped"].includes(type ?? "")) throw new Error(`unknown type, ${at}`);
      current.type = type!;
      return;
    }
    if (line.startsWith("#")) return;
    const m = SAMPLE.exec(line);
    if (!m) throw new Error(`not a sample, ${at}`);
    const [, name, , rawLabels, rawValue] = m;
    const fam: Family | null = current;
    if (!fam) throw new Error(`sample before any family, ${at}`);
    const allowed = fam.type === "histogram" ? [`${fam.name}_bucket`, `${fam.name}_sum`, `${fam.name}_count`] : [fam.name];
    if (!allowed.includes(name!)) throw new Error(`sample ${name} outside its family ${fam.name}, ${at}`);
    const labels: Record<string, string> = {};
    if (rawLabels) {
      LABEL.lastIndex = 0;
      while (LABEL.lastIndex < rawLabels.length) {
        const l = LABEL.exec(rawLabels);
        if (!l) throw new Error(`bad labels, ${at}`);
        if (l[1]! in labels) throw new Error(`label twice, ${at}`);
        labels[l[1]!] = l[2]!.replace(/\\n/g, "\n").replace(/\\"/g, '"').replace(/\\\\/g, "\\");
      }
    }
    const value = rawValue === "+Inf" ? Infinity : rawValue === "-Inf" ? -Infinity : rawValue === "NaN" ? NaN : Number(rawValue);
    if (Number.isNaN(value) && rawValue !== "NaN") throw new Error(`bad value, ${at}`);
    if (fam.type === "counter" && value < 0) throw new Error(`negative counter, ${at}`);
    fam.samples.push({ name: name!, labels, value });
  });
  for (const f of families.values()) if (f.type === "histogram") checkHistogram(f);
  return families;
}

function checkHistogram(f: Family) {
  const series = new Map<string, { buckets: { le: number; v: number }[]; count?: number }>();
  for (const s of f.samples) {
    const { le, ...rest } = s.labels;
    const id = JSON.stringify(Object.entries(rest).sort());
    const e = series.get(id) ?? { buckets: [] };
    series.set(id, e);
    if (s.name.endsWith("_bucket")) {
      if (le === undefined) throw new Error(`${f.name}: a bucket without le`);
      e.buckets.push({ le: le === "+Inf" ? Infinity : Number(le), v: s.value });
    } else if (s.name.endsWith("_count")) e.count = s.value;
  }
  for (const [id, e] of series) {
    for (let i = 1; i < e.buckets.length; i++) {
      if (!(e.buckets[i]!.le > e.buckets[i - 1]!.le) || e.buckets[i]!.v < e.buckets[i - 1]!.v)
        throw new Error(`${f.name}${id}: buckets not cumulative`);
    }
    const inf = e.buckets.at(-1);
    if (!inf || inf.le !== Infinity) throw new Error(`${f.name}${id}: no +Inf bucket`);
    if (inf.v !== e.count) throw new Error(`${f.name}${id}: +Inf bucket ${inf.v} ≠ _count ${e.count}`);
  }
}

/** The value of one sample (0 when absent), matching every label given. */
export function valueOf(families: Map<string, Family>, family: string, labels: Record<string, string> = {}, sample = family): number {
  const f = families.get(family);
  const s = f?.samples.find((x) => x.name === sample && Object.entries(labels).every(([k, v]) => x.labels[k] === v));
  return s?.value ?? 0;
}
