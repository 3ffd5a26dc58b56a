import type { WindowKey } from "@/lib/insight/windows";

/** The overview's window when it opens: the one the server renders the charts for. */
export const FIRST_WINDOW: WindowKey = "6h";
