import { numbers } from "@/components/numbers";
import { STATE_STYLES } from "@/components/state-badge";
import { TRANSITIONS } from "@/lib/fsm/table";
import { layoutStateMachine } from "@/lib/insight/diagram-layout";

/** Tailwind swatch class → the colour it stands for (the diagram is SVG, so it needs the value). */
const FILL: Record<string, string> = {
  "bg-sky-500": "#0ea5e9",
  "bg-indigo-500": "#6366f1",
  "bg-violet-500": "#8b5cf6",
  "bg-amber-400": "#fbbf24",
  "bg-orange-500": "#f97316",
  "bg-yellow-500": "#eab308",
  "bg-emerald-500": "#10b981",
  "bg-red-500": "#ef4444",
  "bg-neutral-400": "#a3a3a3",
};

const layout = layoutStateMachine();

/** The state diagram, drawn from the transition table; each arrow labelled with its events and their counts. */
export function StateDiagram({ counts }: { counts: Record<string, number> }) {
  const { width, height, nodes, edges, nodeW, nodeH } = layout;
  const countFor = (from: string, event: string, to: string) => counts[`${from === "start" ? "-" : from}|${event}|${to}`] ?? 0;
  return (
    <div className="overflow-x-auto">
      <svg role="img" aria-label={`State diagram: ${TRANSITIONS.length} transitions between ${nodes.length - 1} states`} viewBox={`0 0 ${width} ${height}`} className="h-auto w-full min-w-[760px]">
        <defs>
          <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="8" markerHeight="8" markerUnits="userSpaceOnUse" orient="auto-start-reverse">
            <path d="M 0 0 L 10 5 L 0 10 z" fill="#737373" />
          </marker>
        </defs>
        {edges.map((e) => {
          const n = e.events.reduce((s, ev) => s + countFor(e.from, ev, e.to), 0);
          return (
            <g key={`${e.from}-${e.to}`}>
              <path d={e.path} fill="none" stroke={n > 0 ? "#525252" : "#d4d4d4"} strokeWidth={n > 0 ? 1 + Math.min(3, Math.log10(n + 1)) : 1} strokeDasharray={e.back ? "4 3" : undefined} markerEnd="url(#arrow)" />
              <text x={e.labelX} y={e.labelY} textAnchor="middle" fontSize="10.5" className="fill-neutral-700" paintOrder="stroke" stroke="#ffffff" strokeWidth={3}>
                {e.events.map((ev) => `${ev} ${numbers.format(countFor(e.from, ev, e.to))}`).join(" · ")}
              </text>
            </g>
          );
        })}
        {nodes.map((n) =>
          n.id === "start" ? (
            <g key="start">
              <circle cx={n.x} cy={n.y} r={9} fill="#171717" />
              <text x={n.x} y={n.y + 24} textAnchor="middle" fontSize="10.5" className="fill-neutral-500">submit</text>
            </g>
          ) : (
            <g key={n.id}>
              <rect x={n.x - nodeW / 2} y={n.y - nodeH / 2} width={nodeW} height={nodeH} rx={8} fill="#ffffff" stroke={FILL[STATE_STYLES[n.id].swatch] ?? "#737373"} strokeWidth={n.terminal ? 3 : 1.5} />
              <circle cx={n.x - nodeW / 2 + 14} cy={n.y} r={4} fill={FILL[STATE_STYLES[n.id].swatch] ?? "#737373"} />
              <text x={n.x + 6} y={n.y + 4} textAnchor="middle" fontSize="12" fontFamily="ui-monospace, monospace" className="fill-neutral-900">
                {n.id}
              </text>
            </g>
          ),
        )}
      </svg>
    </div>
  );
}
