"use client";

import { Fragment, useState, type ComponentProps, type ReactNode } from "react";
import { actionsColumn, DataTable, type Column } from "@/components/data-table";
import { LocalDay } from "@/components/time-zone";
import { SECONDARY } from "@/components/fields";
import { SubmitButton } from "@/components/submit-button";

/** An editor that opens under a row: its button's text and accessible name, and what it shows until closed. */
export type RowEditor<T> = { label: string; name: (row: T) => string; panel: (row: T, close: () => void) => ReactNode };

type Props<T> = Omit<ComponentProps<typeof DataTable<T>>, "framed" | "detail"> & { editors: RowEditor<T>[] };

/**
 * An admin list whose rows open editors under them (change role, rename): each editor's button in the
 * row's last column. Each editor is open on one row at a time; two editors may be open at once.
 */
export function EditorTable<T>({ editors, columns, rowKey, ...table }: Props<T>) {
  // The row each editor (by label) is open on.
  const [openOn, setOpenOn] = useState<Record<string, string | null>>({});
  const set = (label: string, key: string | null) => setOpenOn((o) => ({ ...o, [label]: key }));
  const isOpen = (e: RowEditor<T>, row: T) => openOn[e.label] === rowKey(row);
  return (
    <DataTable
      framed
      rowKey={rowKey}
      {...table}
      detail={(row) => {
        const open = editors.filter((e) => isOpen(e, row));
        return (
          open.length > 0 && (
            <div className="space-y-3">
              {open.map((e) => (
                <Fragment key={e.label}>{e.panel(row, () => set(e.label, null))}</Fragment>
              ))}
            </div>
          )
        );
      }}
      columns={[
        ...columns,
        actionsColumn((row: T) => (
          <span className="space-x-2 whitespace-nowrap">
            {editors.map((e) => (
              <EditToggle
                key={e.label}
                isOpen={isOpen(e, row)}
                label={e.label}
                name={e.name(row)}
                onToggle={() => set(e.label, isOpen(e, row) ? null : rowKey(row))}
              />
            ))}
          </span>
        )),
      ]}
    />
  );
}

/** The button that opens a row's editor under it (change role, rename), and closes it again. */
function EditToggle({ isOpen, label, name, onToggle }: { isOpen: boolean; label: string; name: string; onToggle: () => void }) {
  return (
    <button type="button" className={SECONDARY} aria-expanded={isOpen} aria-label={name} onClick={onToggle}>
      {label}
    </button>
  );
}

/** An editor's buttons: close it, or save what it holds. */
export function CloseOrSave({ pending, save, onClose }: { pending: boolean; save: string; onClose: () => void }) {
  return (
    <>
      <button type="button" onClick={onClose} className={SECONDARY}>
        Close
      </button>
      <SubmitButton pending={pending} busy="Saving…">
        {save}
      </SubmitButton>
    </>
  );
}

/** When the row (a user, a tenant) was created, as a day in the viewer's zone. */
export function createdColumn<T extends { createdAt: string }>(): Column<T> {
  return { header: "Created", className: "whitespace-nowrap text-neutral-600", cell: (r) => <LocalDay at={new Date(r.createdAt)} /> };
}

/** A row's off switch, when it is off (a deactivated user, a suspended tenant). */
export function OffBadge({ children }: { children: ReactNode }) {
  return (
    <span className="ml-1.5 rounded-full bg-red-50 px-2 py-0.5 font-sans text-xs font-medium text-red-800 ring-1 ring-red-600/20">{children}</span>
  );
}
