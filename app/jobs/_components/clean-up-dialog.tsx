"use client";

import { useState } from "react";
import { ConfirmDialog } from "@/components/confirm-dialog";
import { INPUT } from "@/components/fields";
import { IntegerField } from "@/components/form-field";
import type { JobFilters } from "@/lib/jobs/filters";
import { OperationDialog } from "@/app/_operation/operation-dialog";
import { searchOf } from "./url";

const DAY = 86_400_000;

/**
 * "Clean up finished jobs": how old first, then the one operation dialog deletes, among the jobs
 * the list's filters select, those that finished before then, oldest first (dry run, confirm, result).
 */
export function CleanUpDialog({ filters, onClose, onDeleted }: { filters: JobFilters; onClose: () => void; onDeleted: () => void }) {
  const [days, setDays] = useState("30");
  const [search, setSearch] = useState<string | null>(null);
  const n = Number(days);
  const isValid = Number.isInteger(n) && n >= 1;

  if (search !== null) {
    return (
      <OperationDialog
        request={{ key: 0, operation: "delete", selection: { kind: "filter", search }, title: "Clean up finished jobs" }}
        onClose={onClose}
        onApplied={onDeleted}
      />
    );
  }
  return (
    <ConfirmDialog
      title="Clean up finished jobs"
      body="Jobs that finished (succeeded, dead or cancelled) more than this long ago, with their history, among the jobs this list's filters select. Nothing changes before the dry run's count and your confirmation."
      confirmLabel="Count them (dry run)"
      isDestructive={false}
      isConfirmDisabled={!isValid}
      onConfirm={() => {
        // The list's own tab, cursor, sort and phrase do not narrow a clean-up: every finished job of the filter, oldest first.
        const { state: _tab, after: _a, before: _b, sort: _s, phrase: _p, ...rest } = filters;
        void [_tab, _a, _b, _s, _p];
        setSearch(searchOf({ ...rest, finishedTo: new Date(Date.now() - n * DAY), sort: "oldest" }));
      }}
      onClose={onClose}
    >
      <IntegerField
        id="clean-days"
        label="Finished more than"
        hint="days ago"
        min={1}
        value={days}
        onChange={(e) => setDays(e.currentTarget.value)}
        className={`${INPUT} w-32`}
      />
    </ConfirmDialog>
  );
}
