import type { ComponentProps } from "react";
import { Empty } from "@/components/charts/card";
import { DataTable } from "@/components/data-table";

type Props<T> = Omit<ComponentProps<typeof DataTable<T>>, "rows" | "framed"> & {
  rows: readonly T[];
  /** What an empty list says. */
  empty: string;
};

/**
 * A page's list from the database, in a framed table; `empty` when it has no row. (A read that failed
 * is not an empty list: a server-rendered page fails (app/error.tsx), a polled one shows its QueryLoadError.)
 */
export function PageTable<T>({ rows, empty, ...table }: Props<T>) {
  return rows.length === 0 ? <Empty>{empty}</Empty> : <DataTable framed rows={rows} {...table} />;
}
