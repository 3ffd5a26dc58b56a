import { TERMINAL_STATES, TRANSITIONS } from "./table";

/** A Mermaid state diagram generated from the transition table. */
export function toMermaid(): string {
  const lines = ["stateDiagram-v2"];
  for (const t of TRANSITIONS) {
    lines.push(`    ${t.from ?? "[*]"} --> ${t.to}: ${t.event}`);
  }
  for (const s of TERMINAL_STATES) lines.push(`    ${s} --> [*]`);
  return lines.join("\n");
}
