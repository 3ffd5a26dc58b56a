import type { ComponentProps } from "react";
import { Empty } from "@/components/charts/card";
import { DataTable } from "@/components/data-table";

type Props<T> = Omit<ComponentProps<typeof DataTable<T>>, "rows" | "framed"> & {
  /** Undefined when the database did not answer. */
  rows: readonly T[] | undefined;
  /** What could not be done then, in the page's words: "Could not read the audit log". */
  unread: string;
  /** What an empty list says. */
  empty: string;
};

/** A page's list from the database, in a framed table; an alert when it could not be read, `empty` when it has no row. */
export function PageTable<T>({ rows, unread, empty, ...table }: Props<T>) {
  if (!rows) {
    return (
      <div role="alert" className="rounded-lg border border-red-200 bg-red-50 p-4 text-sm text-red-900">
        {unread}: the database did not answer. Details are in the server log.
      </div>
    );
  }
  return rows.length === 0 ? <Empty>{empty}</Empty> : <DataTable framed rows={rows} {...table} />;
}
