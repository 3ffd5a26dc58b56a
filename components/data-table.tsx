import { Fragment, type ReactNode } from "react";
import { TableNav } from "./table-nav";

export type Column<T> = {
  /** The column's name: its header, and on a phone the label before each of its cells. */
  header: string;
  /** Read by screen readers only: a column of buttons or checkboxes. */
  hideHeader?: boolean;
  /** What the header shows instead of its name (a select-all checkbox); the name stays its label. */
  headerCell?: ReactNode;
  cell: (row: T) => ReactNode;
  align?: "right";
  /** Extra classes for this column's cells: width, font, wrapping. */
  className?: string;
  /** Its cells name their rows (`<th scope="row">`). */
  isRowHeader?: boolean;
};

type Props<T> = {
  rows: readonly T[];
  columns: readonly Column<T>[];
  rowKey: (row: T) => string;
  /** The table's accessible name (a visually hidden caption). */
  caption: string;
  /** A row's accessible name, when its cells do not say it well. */
  rowLabel?: (row: T) => string;
  rowClassName?: (row: T) => string | undefined;
  /** A `data-testid` for every row, for specs that find a row by its text. */
  rowTestId?: string;
  /** An expanded row under a row (a group's jobs, an edit form); null when closed. */
  detail?: (row: T) => ReactNode;
  detailId?: (row: T) => string;
  /** A bordered card of its own; without it, the table sits inside a card. */
  framed?: boolean;
  /** On a phone, each row becomes a block of labelled cells instead of a table that scrolls sideways. */
  stackOnPhone?: boolean;
  /** Cells of one line each read best centred; cells that wrap, from the top. */
  valign?: "top" | "middle";
  className?: string;
};

const TH = "px-3 py-2 text-left text-xs font-medium whitespace-nowrap text-neutral-600";
const TD = "px-3 py-2";

/**
 * The console's one table: a header row, one row per item, optional expanded
 * rows, keyboard navigation between rows (TableNav), and on phones a stack of
 * labelled cells. Renders on the server as well as in the browser.
 */
export function DataTable<T>({
  rows,
  columns,
  rowKey,
  caption,
  rowLabel,
  rowClassName,
  rowTestId,
  detail,
  detailId,
  framed = false,
  stackOnPhone = true,
  valign = "top",
  className = "",
}: Props<T>) {
  const frame = framed ? "rounded-lg border border-neutral-200 bg-white shadow-xs" : "";
  return (
    <TableNav label={caption} className={`data-table overflow-x-auto ${frame} ${className}`}>
      <table className="w-full text-sm" data-stack={stackOnPhone ? "" : undefined}>
        <caption className="sr-only">{caption}</caption>
        <thead className={`border-b border-neutral-200 ${framed ? "bg-neutral-50" : ""}`}>
          <tr>
            {columns.map((c) => (
              <th key={c.header} scope="col" className={`${TH} ${c.align === "right" ? "text-right" : ""}`}>
                {c.headerCell ?? (c.hideHeader ? <span className="sr-only">{c.header}</span> : c.header)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-neutral-100">
          {rows.map((row) => {
            const key = rowKey(row);
            const more = detail?.(row);
            return (
              <Fragment key={key}>
                <tr
                  data-row=""
                  data-testid={rowTestId}
                  tabIndex={-1}
                  aria-label={rowLabel?.(row)}
                  className={rowClassName?.(row) ?? "hover:bg-neutral-50"}
                >
                  {columns.map((c) => {
                    const cls = `${TD} ${valign === "top" ? "align-top" : "align-middle"} ${c.align === "right" ? "text-right" : ""} ${c.className ?? ""}`;
                    const label = c.hideHeader ? undefined : c.header;
                    return c.isRowHeader ? (
                      <th key={c.header} scope="row" data-label={label} className={`${cls} text-left font-normal`}>
                        {c.cell(row)}
                      </th>
                    ) : (
                      <td key={c.header} data-label={label} className={cls}>
                        {c.cell(row)}
                      </td>
                    );
                  })}
                </tr>
                {more && (
                  <tr id={detailId?.(row)} data-detail="" className="bg-neutral-50/70">
                    <td colSpan={columns.length} className="px-3 pt-1 pb-3">
                      {more}
                    </td>
                  </tr>
                )}
              </Fragment>
            );
          })}
        </tbody>
      </table>
    </TableNav>
  );
}

/**
 * The rows of a list of things an operator pauses (queues, schedules): each named `<noun> <name>`,
 * with ": paused" and an amber tint while it is paused, and a test id `<noun>-row`.
 */
export function pausableRows<T extends { name: string; paused: boolean }>(noun: string): Pick<Props<T>, "rowLabel" | "rowTestId" | "rowClassName"> {
  return {
    rowLabel: (r) => `${noun} ${r.name}${r.paused ? ": paused" : ""}`,
    rowTestId: `${noun}-row`,
    rowClassName: (r) => (r.paused ? "bg-amber-50/60" : undefined),
  };
}

/** The last column of buttons (replay, rename, revoke): right-aligned, its header for screen readers only. */
export function actionsColumn<T>(cell: (row: T) => ReactNode): Column<T> {
  return { header: "Actions", hideHeader: true, align: "right", cell };
}
