"use client";

import { useState } from "react";
import { AgoOverTime } from "@/components/cells";
import { actionsColumn, DataTable, type Column } from "@/components/data-table";
import { numbers } from "@/components/numbers";
import type { DeadGroupDto } from "@/lib/client/wire";
import { GroupJobs } from "./group-jobs";
import { groupName, NO_ERROR, SMALL_BUTTON } from "./groups";
import type { GroupListProps } from "./groups";

type Props = GroupListProps & {
  groups: DeadGroupDto[];
  /** The response's clock: "last seen" is relative to it. */
  at: string;
};

const groupId = (g: Pick<DeadGroupDto, "type" | "errorClass">) => JSON.stringify([g.type, g.errorClass]);
const panelId = (g: DeadGroupDto) => `group-${encodeURIComponent(groupId(g)).replace(/%/g, "_")}`;

export function GroupsTable({ groups, at, scope, isPaused, selected, onToggle, onReplay }: Props) {
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const flip = (id: string) =>
    setOpen((prev) => {
      const next = new Set(prev);
      if (!next.delete(id)) next.add(id);
      return next;
    });

  const columns: Column<DeadGroupDto>[] = [
    {
      header: "Show jobs",
      hideHeader: true,
      className: "w-10",
      cell: (g) => {
        const isOpen = open.has(groupId(g));
        return (
          <button
            type="button"
            aria-expanded={isOpen}
            aria-controls={panelId(g)}
            aria-label={`${isOpen ? "Hide" : "Show"} jobs of ${groupName(g)}`}
            onClick={() => flip(groupId(g))}
            className="grid size-6 place-items-center rounded text-neutral-600 hover:bg-neutral-100 hover:text-neutral-900"
          >
            <svg aria-hidden="true" viewBox="0 0 16 16" className={`size-4 transition-transform ${isOpen ? "rotate-90" : ""}`} fill="currentColor">
              <path d="M6 3.5 10.5 8 6 12.5z" />
            </svg>
          </button>
        );
      },
    },
    {
      header: "Type",
      className: "max-w-44 font-mono text-xs text-neutral-800",
      cell: (g) => (
        <>
          <span className="block truncate" title={g.type}>
            {g.type}
          </span>
          <span className="mt-1 block truncate font-sans text-neutral-600" title={g.queues.join(", ")}>
            {g.queues.length === 1 ? "queue " : "queues "}
            {g.queues.join(", ")}
          </span>
        </>
      ),
    },
    {
      header: "Error class",
      className: "max-w-48",
      cell: (g) => (
        <span
          className={`inline-block max-w-full truncate rounded px-1.5 py-0.5 font-mono text-xs ${g.errorClass ? "bg-red-50 text-red-800" : "bg-neutral-100 text-neutral-700 italic"}`}
          title={g.errorClass ?? NO_ERROR}
        >
          {g.errorClass ?? NO_ERROR}
        </span>
      ),
    },
    { header: "Count", align: "right", className: "font-semibold tabular-nums", cell: (g) => <data value={g.count}>{numbers.format(g.count)}</data> },
    {
      header: "Last seen",
      cell: (g) => <AgoOverTime at={g.lastSeen} now={at} />,
    },
    {
      header: "Sample message",
      cell: (g) => (
        // Inert text: React escapes it; clamped, with the sample in full on hover.
        <p className="line-clamp-2 text-xs break-words text-neutral-700" title={g.sampleMessage ?? undefined}>
          {g.sampleMessage ?? <span className="text-neutral-600 italic">no message</span>}
        </p>
      ),
    },
  ];
  if (onReplay) {
    columns.push(
      actionsColumn((g) => (
        <button
          type="button"
          aria-label={`Replay group ${groupName(g)}`}
          onClick={() => onReplay({ kind: "group", type: g.type, errorClass: g.errorClass, scope }, `Replay group ${groupName(g)}`)}
          className={SMALL_BUTTON}
        >
          Replay group
        </button>
      )),
    );
  }

  return (
    <DataTable
      framed
      caption="Dead jobs by type and error class, most recently seen first"
      rows={groups}
      rowKey={groupId}
      rowLabel={groupName}
      detailId={panelId}
      detail={(g) =>
        open.has(groupId(g)) ? (
          <GroupJobs group={g} scope={scope} isPaused={isPaused} selected={selected} onToggle={onToggle} onReplay={onReplay} />
        ) : null
      }
      columns={columns}
    />
  );
}
