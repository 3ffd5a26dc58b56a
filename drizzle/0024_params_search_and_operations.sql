-- 0024: search by params, and the audit entry of a bulk operation.
--
-- The jobs list's params filter (`params.customer_id = 42`, or `{"customer_id": 42}`) is a JSON
-- containment, `params @> '{"customer_id": 42}'`, which this GIN index serves (jsonb_path_ops: one
-- hashed entry per path-to-value, containment only, smaller and faster than jsonb_ops). job_catalog is
-- written once at submit and never updated, so the index is paid once per job, never per transition
-- (docs/benchmarks.md, "Search by params": its size and the cost per submit at 10M jobs). A large
-- deployment builds it first with CREATE INDEX CONCURRENTLY; IF NOT EXISTS then skips it here.
CREATE INDEX IF NOT EXISTS "job_catalog_params_idx" ON "job_catalog" USING gin ("params" jsonb_path_ops);
--> statement-breakpoint
-- The newest `cap` jobs whose params contain `want` (within an optional tenant and created range, and
-- older than the keyset cursor (before_at, before_id) when given), for the list (lib/jobs/list-source.ts,
-- fromParams). Under the tenant policy the planner may not use `params @> …` as an index condition
-- (jsonb containment is not leakproof), so a tenant's search would read its whole history: the search
-- runs here as the owner, with the policy's own condition written out (`jobscope_sees_all() OR
-- tenant_id = jobscope_tenant()`, the transaction's scope: a transaction that set neither finds
-- nothing). The statement is planned for each call with its values (EXECUTE … USING), so the planner
-- weighs this value's frequency from the column's statistics: a rare value through the GIN index, then
-- the newest sorted out; a common one by walking job_catalog_created_idx newest first, checking each row.
CREATE FUNCTION jobscope_params_match(want jsonb, tenant text, created_from timestamptz, created_to timestamptz,
                                      before_at timestamptz, before_id uuid, cap integer)
  RETURNS TABLE (id uuid, created_at timestamptz)
  LANGUAGE plpgsql STABLE SECURITY DEFINER
  SET search_path = public, pg_temp SET enable_seqscan = off AS $$
BEGIN
  RETURN QUERY EXECUTE
    'SELECT c.id, c.created_at FROM job_catalog c
      WHERE c.params @> $1
        AND (jobscope_sees_all() OR c.tenant_id = jobscope_tenant())'
    || CASE WHEN tenant IS NULL THEN '' ELSE ' AND c.tenant_id = $2' END
    || CASE WHEN created_from IS NULL THEN '' ELSE ' AND c.created_at >= $3' END
    || CASE WHEN created_to IS NULL THEN '' ELSE ' AND c.created_at < $4' END
    || CASE WHEN before_at IS NULL THEN '' ELSE ' AND (c.created_at, c.id) < ($5, $6)' END
    || ' ORDER BY c.created_at DESC NULLS LAST, c.id DESC NULLS LAST LIMIT $7'
    USING want, tenant, created_from, created_to, before_at, before_id, cap;
END
$$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION jobscope_params_match(jsonb, text, timestamptz, timestamptz, timestamptz, uuid, integer) FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION jobscope_params_match(jsonb, text, timestamptz, timestamptz, timestamptz, uuid, integer) TO jobscope_app, jobscope_staff;
--> statement-breakpoint
-- A bulk operation (or a replay) is one audit entry, written when it is confirmed, naming its jobs and
-- the operation: its items and their outcomes are reached from it (/jobs?operation=<id>), no longer one
-- audit row per item.
ALTER TABLE "audit_log" ADD COLUMN IF NOT EXISTS "operation_id" uuid;
