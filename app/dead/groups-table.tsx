"use client";

import { Fragment, useState } from "react";
import { numbers } from "@/components/numbers";
import { formatAgo, formatUtcLong } from "@/components/relative-time";
import type { DeadGroupDto } from "@/lib/client/wire";
import { groupName, NO_ERROR } from "./groups";
import { GroupJobs } from "./group-jobs";
import type { ReplaySelectionInput } from "./replay-types";
import type { DeadScopeParams } from "./scope";

type Props = {
  groups: DeadGroupDto[];
  /** The response's clock: "last seen" is relative to it. */
  at: string;
  scope: DeadScopeParams;
  isPaused: boolean;
  selected: ReadonlySet<string>;
  onToggle: (ids: string[], on: boolean) => void;
  /** Absent for roles that may not replay: no replay buttons are shown. */
  onReplay?: (selection: ReplaySelectionInput, title: string) => void;
};

const groupId = (g: Pick<DeadGroupDto, "type" | "errorClass">) => JSON.stringify([g.type, g.errorClass]);

export function GroupsTable({ groups, at, scope, isPaused, selected, onToggle, onReplay }: Props) {
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const flip = (id: string) =>
    setOpen((prev) => {
      const next = new Set(prev);
      if (!next.delete(id)) next.add(id);
      return next;
    });
  const th = "px-3 py-2 text-left text-xs font-medium tracking-wide text-neutral-500 uppercase";

  return (
    <div className="overflow-x-auto rounded-lg border border-neutral-200 bg-white shadow-xs">
      <table className="w-full table-fixed border-collapse text-sm">
        <caption className="sr-only">Dead jobs by type and error class, most recently seen first</caption>
        <colgroup>
          <col className="w-10" />
          <col className="w-44" />
          <col className="w-48" />
          <col className="w-20" />
          <col className="w-52" />
          <col />
          <col className="w-32" />
        </colgroup>
        <thead className="border-b border-neutral-200 bg-neutral-50">
          <tr>
            <th scope="col" className={th}>
              <span className="sr-only">Show jobs</span>
            </th>
            <th scope="col" className={th}>Type</th>
            <th scope="col" className={th}>Error class</th>
            <th scope="col" className={`${th} text-right`}>Count</th>
            <th scope="col" className={th}>Last seen</th>
            <th scope="col" className={th}>Sample message</th>
            <th scope="col" className={th}>
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {groups.map((g) => {
            const id = groupId(g);
            const isOpen = open.has(id);
            const panelId = `group-${encodeURIComponent(id).replace(/%/g, "_")}`;
            return (
              <Fragment key={id}>
                <tr aria-label={groupName(g)} className="border-b border-neutral-100 align-top last:border-0">
                  <td className="px-3 py-2.5">
                    <button
                      type="button"
                      aria-expanded={isOpen}
                      aria-controls={panelId}
                      aria-label={`${isOpen ? "Hide" : "Show"} jobs of ${groupName(g)}`}
                      onClick={() => flip(id)}
                      className="grid size-6 place-items-center rounded text-neutral-500 hover:bg-neutral-100 hover:text-neutral-900"
                    >
                      <svg aria-hidden="true" viewBox="0 0 16 16" className={`size-4 transition-transform ${isOpen ? "rotate-90" : ""}`} fill="currentColor">
                        <path d="M6 3.5 10.5 8 6 12.5z" />
                      </svg>
                    </button>
                  </td>
                  <td className="truncate px-3 py-2.5 font-mono text-xs text-neutral-800" title={g.type}>
                    {g.type}
                    <div className="mt-1 truncate font-sans text-neutral-500" title={g.queues.join(", ")}>
                      {g.queues.length === 1 ? "queue " : "queues "}
                      {g.queues.join(", ")}
                    </div>
                  </td>
                  <td className="px-3 py-2.5">
                    <span
                      className={`inline-block max-w-full truncate rounded px-1.5 py-0.5 font-mono text-xs ${
                        g.errorClass ? "bg-red-50 text-red-800" : "bg-neutral-100 text-neutral-600 italic"
                      }`}
                      title={g.errorClass ?? NO_ERROR}
                    >
                      {g.errorClass ?? NO_ERROR}
                    </span>
                  </td>
                  <td className="px-3 py-2.5 text-right font-semibold tabular-nums">
                    <data value={g.count}>{numbers.format(g.count)}</data>
                  </td>
                  <td className="px-3 py-2.5">
                    <time dateTime={g.lastSeen} className="block text-neutral-900">
                      {formatAgo(Date.parse(at) - Date.parse(g.lastSeen))}
                    </time>
                    <span className="block text-xs whitespace-nowrap text-neutral-500 tabular-nums">{formatUtcLong(new Date(g.lastSeen))}</span>
                  </td>
                  <td className="px-3 py-2.5">
                    {/* Inert text: React escapes it; clamped, with the sample in full on hover. */}
                    <p className="line-clamp-2 text-xs break-words text-neutral-700" title={g.sampleMessage ?? undefined}>
                      {g.sampleMessage ?? <span className="text-neutral-400 italic">no message</span>}
                    </p>
                  </td>
                  <td className="px-3 py-2.5 text-right">
                    {onReplay && <button
                      type="button"
                      aria-label={`Replay group ${groupName(g)}`}
                      onClick={() =>
                        onReplay(
                          { kind: "group", type: g.type, errorClass: g.errorClass, scope },
                          `Replay group ${groupName(g)}`,
                        )
                      }
                      className="rounded-md border border-neutral-300 bg-white px-2.5 py-1 text-xs font-medium whitespace-nowrap text-neutral-800 shadow-xs hover:bg-neutral-50"
                    >
                      Replay group
                    </button>}
                  </td>
                </tr>
                {isOpen && (
                  <tr id={panelId} className="border-b border-neutral-100 bg-neutral-50/60">
                    <td colSpan={7} className="px-3 pt-1 pb-3">
                      <GroupJobs group={g} scope={scope} isPaused={isPaused} selected={selected} onToggle={onToggle} onReplay={onReplay} />
                    </td>
                  </tr>
                )}
              </Fragment>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
