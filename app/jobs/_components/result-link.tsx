import Link from "next/link";
import { numbers } from "@/components/numbers";
import { operationHref } from "./url";

/**
 * Where a bulk action's or a replay's result leads: the jobs it touched, listed
 * with where they are now (/jobs?operation=<id>), or the one job it touched.
 */
export function ResultLink({
  operationId,
  onlyJobId,
  total,
  className = "",
}: {
  operationId: string;
  onlyJobId: string | null;
  total: number | null;
  className?: string;
}) {
  const style = `inline-block text-sm font-medium text-sky-800 underline underline-offset-2 hover:text-sky-950 ${className}`;
  if (onlyJobId) {
    return (
      <Link href={`/jobs/${onlyJobId}`} prefetch={false} className={style}>
        Open the job and follow it →
      </Link>
    );
  }
  return (
    <Link href={operationHref(operationId)} prefetch={false} className={style}>
      {total === null ? "The jobs it touched" : `The ${numbers.format(total)} jobs it touched`}, and how they end →
    </Link>
  );
}
