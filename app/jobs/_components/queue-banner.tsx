"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { LocalTime } from "@/components/time-zone";
import { queueStatusQuery } from "@/lib/client/queries";

/**
 * Over the jobs of one queue: whether the queue is paused, polled with the list. A
 * paused queue's queued jobs wait; nothing about them changes. Staff see who paused it and link
 * to the queues page; a tenant member sees only that it is paused.
 */
export function QueueBanner({ queue, pollMs, isStaff }: { queue: string; pollMs: number | false; isStaff: boolean }) {
  const q = useQuery({ ...queueStatusQuery(queue), refetchInterval: pollMs });
  const s = q.data;
  if (!s?.paused) return null;
  return (
    <div role="status" className="rounded-lg border border-amber-300 bg-amber-50 px-4 py-3 text-sm text-amber-950">
      <p className="font-medium">
        Queue <span className="font-mono">{s.name}</span> is paused: workers claim none of its jobs until it is resumed. Jobs already running finish.
      </p>
      {isStaff && (
        <p className="mt-1 text-amber-900">
          {s.pausedBy ? `Paused by ${s.pausedBy}` : "Paused"}
          {s.pausedAt && (
            <>
              {" "}
              at <LocalTime at={new Date(s.pausedAt)} />
            </>
          )}
          .{" "}
          <Link href="/queues" className="font-medium underline">
            Manage queues
          </Link>
        </p>
      )}
    </div>
  );
}
