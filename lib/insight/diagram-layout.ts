import { STATES, TERMINAL_STATES, TRANSITIONS, type JobState } from "../fsm/table";

/**
 * A layered drawing of the transition table, computed from the table itself
 * (no layout library): states in columns by their distance from `submit`,
 * terminal states in the last column; edges between the same pair of states
 * share one arrow, labelled with every event on it.
 */
export type Node = { id: JobState | "start"; x: number; y: number; terminal: boolean };
export type Edge = { from: Node["id"]; to: JobState; events: string[]; path: string; labelX: number; labelY: number; back: boolean };
export type Layout = { width: number; height: number; nodes: Node[]; edges: Edge[]; nodeW: number; nodeH: number };

const COL_W = 220;
const ROW_H = 104;
export const NODE_W = 112;
export const NODE_H = 34;
const MARGIN_X = 40;
const ARC_ROOM = 150;

export function layoutStateMachine(): Layout {
  const terminal = new Set<string>(TERMINAL_STATES);
  const layer = new Map<Node["id"], number>([["start", 0]]);
  // Breadth-first from submit, over forward moves into non-terminal states.
  const queue: Node["id"][] = ["start"];
  while (queue.length) {
    const s = queue.shift()!;
    for (const t of TRANSITIONS) {
      if ((t.from ?? "start") !== s || terminal.has(t.to) || layer.has(t.to)) continue;
      layer.set(t.to, layer.get(s)! + 1);
      queue.push(t.to);
    }
  }
  const last = Math.max(...layer.values()) + 1;
  for (const s of STATES) if (!layer.has(s)) layer.set(s, last);

  const columns = new Map<number, Node["id"][]>();
  for (const id of ["start", ...STATES] as Node["id"][]) {
    const l = layer.get(id)!;
    columns.set(l, [...(columns.get(l) ?? []), id]);
  }
  const rows = Math.max(...[...columns.values()].map((c) => c.length));
  const height = ARC_ROOM + rows * ROW_H + 40;
  const nodes: Node[] = [];
  for (const [l, ids] of columns) {
    const top = ARC_ROOM + ((rows - ids.length) * ROW_H) / 2 + ROW_H / 2;
    ids.forEach((id, i) => nodes.push({ id, x: MARGIN_X + l * COL_W + NODE_W / 2, y: top + i * ROW_H, terminal: terminal.has(id) }));
  }
  const at = new Map(nodes.map((n) => [n.id, n]));

  // One arrow per (from, to).
  const pairs = new Map<string, { from: Node["id"]; to: JobState; events: string[] }>();
  for (const t of TRANSITIONS) {
    const from = (t.from ?? "start") as Node["id"];
    const key = `${from}>${t.to}`;
    const p = pairs.get(key) ?? { from, to: t.to, events: [] };
    p.events.push(t.event);
    pairs.set(key, p);
  }
  let backIndex = 0;
  const edges: Edge[] = [...pairs.values()].map((p) => {
    const a = at.get(p.from)!;
    const b = at.get(p.to)!;
    const back = b.x <= a.x;
    if (back) {
      // Back to an earlier column: an arc over the top, each a little higher than the last.
      const lift = 28 + 22 * backIndex++;
      const y = ARC_ROOM - lift;
      const x1 = a.x - 12;
      const x2 = b.x + 12;
      return {
        ...p,
        back,
        path: `M ${x1} ${a.y - NODE_H / 2} C ${x1} ${y}, ${x2} ${y}, ${x2} ${b.y - NODE_H / 2}`,
        labelX: (x1 + x2) / 2,
        labelY: y + 0.75 * (a.y - NODE_H / 2 - y) * 0.25 + 4,
      };
    }
    const x1 = a.x + NODE_W / 2;
    const x2 = b.x - NODE_W / 2;
    const mx = (x1 + x2) / 2;
    // The label sits on the curve: halfway on a short arrow, near its start on a long one.
    const t = b.x - a.x > COL_W ? 0.2 : 0.5;
    const onCurve = (p0: number, p1: number, p2: number, p3: number) =>
      (1 - t) ** 3 * p0 + 3 * (1 - t) ** 2 * t * p1 + 3 * (1 - t) * t ** 2 * p2 + t ** 3 * p3;
    return {
      ...p,
      back,
      path: `M ${x1} ${a.y} C ${mx} ${a.y}, ${mx} ${b.y}, ${x2} ${b.y}`,
      labelX: onCurve(x1, mx, mx, x2),
      labelY: onCurve(a.y, a.y, b.y, b.y) - 4,
    };
  });
  const width = MARGIN_X * 2 + last * COL_W + NODE_W;
  return { width, height, nodes, edges: separateLabels(edges), nodeW: NODE_W, nodeH: NODE_H };
}

/** A label's lines: one per event, "reclaim 1,234" at most. */
export const LABEL_LINE_H = 12;
const LABEL_CHAR_W = 6.2;
const labelBox = (e: Edge) => {
  const w = Math.max(...e.events.map((ev) => ev.length + 7)) * LABEL_CHAR_W;
  const h = e.events.length * LABEL_LINE_H;
  return { x0: e.labelX - w / 2, x1: e.labelX + w / 2, y0: e.labelY - LABEL_LINE_H, y1: e.labelY - LABEL_LINE_H + h };
};

/**
 * Labels of arrows that pass close to each other would print over one another
 * ("stop 38abandon 0claim 3"): each label that overlaps one above it moves
 * down until it is clear, top to bottom.
 */
export function separateLabels(edges: Edge[]): Edge[] {
  const placed: Edge[] = [];
  for (const e of [...edges].sort((a, b) => a.labelY - b.labelY || a.labelX - b.labelX)) {
    const moved = { ...e };
    for (let tries = 0; tries < 20; tries++) {
      const box = labelBox(moved);
      const hit = placed.map(labelBox).find((o) => box.x0 < o.x1 && o.x0 < box.x1 && box.y0 < o.y1 && o.y0 < box.y1);
      if (!hit) break;
      moved.labelY += hit.y1 - box.y0 + 2;
    }
    placed.push(moved);
  }
  return edges.map((e) => placed.find((p) => p.from === e.from && p.to === e.to) ?? e);
}

/** Whether any two labels of a layout overlap: for the test that keeps them apart. */
export function labelsOverlap(edges: Edge[]): boolean {
  const boxes = edges.map(labelBox);
  return boxes.some((a, i) => boxes.some((b, j) => j > i && a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1));
}
