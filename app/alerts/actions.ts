"use server";

import { z } from "zod";
import { fire } from "@/lib/alerts/evaluate";
import { createAlertRule, setAlertRuleEnabled, type RuleOwner } from "@/lib/alerts/rules";
import type { Viewer } from "@/lib/auth/viewer";
import { consoleAction } from "@/lib/frame/action";
import { AppError } from "@/lib/result";
import { sql } from "drizzle-orm";
import { execute } from "@/lib/db/drizzle";

/** The create form's fields as the browser sends them; lib/alerts/rules.ts checks them again, strictly, per kind. */
const NewRule = z.strictObject({
  kind: z.string().max(50),
  name: z.string().max(200),
  url: z.string().max(2000),
  queue: z.string().max(100).optional(),
  type: z.string().max(200).optional(),
  threshold: z.coerce.number().optional(),
  windowMinutes: z.coerce.number().optional(),
});

const ownerOf = (viewer: Viewer): RuleOwner => (viewer.role === "tenant" ? { tenantId: viewer.tenantId ?? "" } : { staff: true });

/** Create an alert rule. Its signing secret is shown once, in the answer, to the person who created it. */
export const createAlertRuleAction = consoleAction({
  permission: "alerts:manage",
  audit: "alert.create",
  input: NewRule,
  change: async ({ tx, input, viewer }) => {
    const rule = {
      kind: input.kind,
      name: input.name,
      url: input.url,
      ...(input.queue?.trim() ? { queue: input.queue.trim() } : {}),
      ...(input.type?.trim() ? { type: input.type.trim() } : {}),
      ...(input.kind === "queue_oldest_due" ? { thresholdSeconds: input.threshold } : {}),
      ...(input.kind === "type_failure_rate" ? { thresholdPercent: input.threshold, windowMinutes: input.windowMinutes } : {}),
    };
    try {
      const { rule: r, secret } = await createAlertRule(tx, rule, ownerOf(viewer), viewer.email);
      return {
        ok: true,
        message: `Created alert "${r.name}". Its signing secret is shown below once: keep it with the receiver.`,
        data: { id: r.id, secret },
      };
    } catch (e) {
      if (e instanceof AppError) throw e.rephrase(`Nothing was created. ${e.userMessage}.`, e.code === "invalid_input" ? "invalid_input" : "refused");
      throw e;
    }
  },
});

const EnableInput = z.strictObject({ id: z.uuid(), enabled: z.boolean() });

/** Enable or disable a rule the viewer can see (a tenant sees only its own tenant's rules). */
export const setAlertRuleEnabledAction = consoleAction({
  permission: "alerts:manage",
  audit: (input) => (input?.enabled === false ? "alert.disable" : "alert.enable"),
  input: EnableInput,
  change: async ({ tx, input: { id, enabled }, viewer }) => {
    const r = await setAlertRuleEnabled(tx, id, enabled, viewer.email);
    if (!r) throw new AppError("refused", "Nothing was changed: that alert rule does not exist.");
    return { ok: true, message: `${enabled ? "Enabled" : "Disabled"} alert "${r.name}".`, data: { enabled } };
  },
});

const TestInput = z.strictObject({ id: z.uuid() });

/** Send a test alert through the rule's webhook: a delivery job like any other, shown in the history. */
export const sendTestAlertAction = consoleAction({
  permission: "alerts:manage",
  audit: "alert.test",
  input: TestInput,
  change: async ({ tx, input: { id }, viewer }) => {
    const [rule] = await execute<{ id: string; name: string; tenantId: string | null }>(
      tx,
      sql`SELECT id, name, tenant_id FROM alert_rules WHERE id = ${id}`,
    );
    if (!rule) throw new AppError("refused", "Nothing was sent: that alert rule does not exist.");
    const { jobId } = await fire(tx, rule, `Test alert for "${rule.name}", sent by ${viewer.email}`, { status: "test" });
    return { ok: true, message: `Queued a test alert for "${rule.name}" (delivery job ${jobId}).`, data: { jobId } };
  },
});
