import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { requirePage } from "@/lib/auth/viewer";
import { firstView } from "@/lib/frame/first-view";
import type { SearchParamsProps } from "@/lib/frame/page";
import type { TypeHistoryResponse } from "@/lib/client/wire";
import { isJobType } from "@/lib/jobs/job-types";
import { parseHistoryRange } from "@/lib/metrics/history";
import { typeHistory } from "@/lib/metrics/type-history";
import { TYPE_NAME } from "../name";
import { TypeHistoryView } from "./type-history-view";

type Props = SearchParamsProps & { params: Promise<{ type: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: (await params).type };
}

export const dynamic = "force-dynamic";

/**
 * One job type over days: throughput and failure rate, run time p50/p95. Rendered with its data on the
 * server (the charts paint with the page), then polled. A name that is no type and has no history is 404.
 */
export default async function TypePage({ params, searchParams }: Props) {
  const { type } = await params;
  const viewer = await requirePage("insight:read", `/types/${encodeURIComponent(type)}`);
  if (!TYPE_NAME.test(type)) notFound();
  const raw = (await searchParams).range;
  const range = parseHistoryRange(typeof raw === "string" ? raw : null);
  const { initial, renderedAt } = await firstView<TypeHistoryResponse>(viewer, `/types/${type}`, async (tx) => ({
    type,
    range,
    points: await typeHistory(tx, type, range),
  }));
  if (initial && !isJobType(type) && initial.points.every((p) => p.succeeded + p.failed + p.leaseExpired + p.other === 0)) notFound();
  return <TypeHistoryView type={type} range={range} initial={initial} renderedAt={renderedAt} />;
}
