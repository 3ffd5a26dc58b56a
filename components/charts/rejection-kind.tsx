import type { RejectionKind } from "@/lib/fsm/table";

const KIND_STYLE: Record<RejectionKind, string> = {
  drift: "bg-red-50 text-red-800 ring-red-600/20",
  conflict: "bg-amber-50 text-amber-800 ring-amber-600/25",
  illegal: "bg-neutral-100 text-neutral-700 ring-neutral-500/20",
};

export function RejectionKindBadge({ kind }: { kind: RejectionKind }) {
  return <span className={`inline-flex rounded-full px-2 py-0.5 font-mono text-xs font-medium ring-1 ring-inset ${KIND_STYLE[kind]}`}>{kind}</span>;
}
