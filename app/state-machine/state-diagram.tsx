import { numbers } from "@/components/numbers";
import { STATE_STYLES } from "@/components/state-badge";
import { TRANSITIONS } from "@/lib/fsm/table";
import { INK } from "@/components/timeline/tones";
import { LABEL_LINE_H, layoutStateMachine } from "@/lib/insight/diagram-layout";

const layout = layoutStateMachine();

/** The state diagram, drawn from the transition table; each arrow labelled with its events and their counts. */
export function StateDiagram({ counts }: { counts: Record<string, number> }) {
  const { width, height, nodes, edges, nodeW, nodeH } = layout;
  const countFor = (from: string, event: string, to: string) => counts[`${from === "start" ? "-" : from}|${event}|${to}`] ?? 0;
  return (
    <div className="overflow-x-auto">
      <svg
        role="img"
        aria-label={`State diagram: ${TRANSITIONS.length} transitions between ${nodes.length - 1} states`}
        viewBox={`0 0 ${width} ${height}`}
        className="h-auto w-full min-w-[760px]"
      >
        <defs>
          <marker
            id="arrow"
            viewBox="0 0 10 10"
            refX="9"
            refY="5"
            markerWidth="8"
            markerHeight="8"
            markerUnits="userSpaceOnUse"
            orient="auto-start-reverse"
          >
            <path d="M 0 0 L 10 5 L 0 10 z" fill={INK.muted} />
          </marker>
        </defs>
        {edges.map((e) => {
          const n = e.events.reduce((s, ev) => s + countFor(e.from, ev, e.to), 0);
          return (
            <g key={`${e.from}-${e.to}`}>
              <path
                d={e.path}
                fill="none"
                stroke={n > 0 ? INK.muted : INK.rule}
                strokeWidth={n > 0 ? 1 + Math.min(3, Math.log10(n + 1)) : 1}
                strokeDasharray={e.back ? "4 3" : undefined}
                markerEnd="url(#arrow)"
              />
              <text
                x={e.labelX}
                y={e.labelY}
                textAnchor="middle"
                fontSize="10.5"
                fill={INK.text}
                paintOrder="stroke"
                stroke={INK.surface}
                strokeWidth={3}
              >
                {e.events.map((ev, i) => (
                  <tspan key={ev} x={e.labelX} dy={i === 0 ? 0 : LABEL_LINE_H}>
                    {ev} {numbers.format(countFor(e.from, ev, e.to))}
                  </tspan>
                ))}
              </text>
            </g>
          );
        })}
        {nodes.map((n) =>
          n.id === "start" ? (
            <g key="start">
              <circle cx={n.x} cy={n.y} r={9} fill={INK.strong} />
              <text x={n.x} y={n.y + 24} textAnchor="middle" fontSize="10.5" fill={INK.muted}>
                submit
              </text>
            </g>
          ) : (
            <g key={n.id}>
              <rect
                x={n.x - nodeW / 2}
                y={n.y - nodeH / 2}
                width={nodeW}
                height={nodeH}
                rx={8}
                fill={INK.surface}
                stroke={STATE_STYLES[n.id].color}
                strokeWidth={n.terminal ? 3 : 1.5}
              />
              <circle cx={n.x - nodeW / 2 + 14} cy={n.y} r={4} fill={STATE_STYLES[n.id].color} />
              <text x={n.x + 6} y={n.y + 4} textAnchor="middle" fontSize="12" fontFamily="ui-monospace, monospace" fill={INK.strong}>
                {n.id}
              </text>
            </g>
          ),
        )}
      </svg>
    </div>
  );
}
