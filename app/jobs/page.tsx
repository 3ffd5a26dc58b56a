import type { Metadata } from "next";
import { currentActor } from "@/lib/auth/actor";
import { pool } from "@/lib/db/client";
import { parseJobFilters } from "@/lib/jobs/filters";
import { JobsView } from "./_components/jobs-view";
import { searchOf } from "./_components/url";
import type { JobsResponse } from "./_components/wire";
import { loadJobs } from "./load";

export const metadata: Metadata = { title: "Jobs" };
export const dynamic = "force-dynamic";

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

export default async function JobsPage({ searchParams }: Props) {
  const filters = parseJobFilters(await searchParams);
  const actor = await currentActor();
  let initial: JobsResponse | null = null;
  try {
    initial = await loadJobs(pool(), filters);
  } catch (err) {
    // The client shows the failure and keeps retrying; the cause stays in the server log.
    console.error("/jobs: first render could not list jobs:", err);
  }
  return <JobsView search={searchOf(filters)} initial={initial} actorKind={actor.kind} />;
}
