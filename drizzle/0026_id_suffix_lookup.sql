-- 0025: the lookup takes any piece of a job id a person pastes, from either end (lib/jobs/id-lookup.ts).
-- A piece of its start is a range of job_catalog_pkey. A piece of its end (the console prints the last
-- 8 hex digits; a person may copy 6 or 12) is a range of this index: the id's last 12 hex digits
-- reversed and read as a 48-bit number, so every suffix of up to 12 digits is a range of keys, and a
-- longer one is a single key, then checked. A number rather than the reversed text: integer
-- comparisons are leakproof, so under a tenant's row-level security policy the range stays an index
-- condition (text's < and > are not, and a tenant's lookup scanned the catalog). It replaces 0022's
-- index of the last 8 digits as text at the same size per entry (8 bytes of key either way). Written
-- once per job at submit, like the catalog row (job_catalog is never updated).
DROP INDEX "job_catalog_id_tail_idx";--> statement-breakpoint
CREATE INDEX "job_catalog_id_suffix_idx" ON "job_catalog" USING btree ((('x' || reverse(right(("id")::text, 12)))::bit(48)::bigint));
--> statement-breakpoint
-- The jobs (at most `cap`) whose id's last 12 digits reversed lie in [lo, hi], and whose id's text
-- ends with `suffix`. Under the tenant policy the planner may not use the index's expression as an
-- index condition (reverse() and right() are not leakproof, so they may not run before the policy's
-- check), and a tenant's lookup would read the whole catalog: the lookup runs here as the owner,
-- with the policy's own condition written out, as jobscope_params_match does (0024). A transaction
-- that set no scope finds nothing.
CREATE FUNCTION jobscope_id_suffix_match(lo bigint, hi bigint, suffix text, cap integer)
  RETURNS TABLE (id uuid)
  LANGUAGE sql STABLE SECURITY DEFINER
  SET search_path = public, pg_temp AS $$
  SELECT c.id FROM job_catalog c
   WHERE (('x' || reverse(right(c.id::text, 12)))::bit(48)::bigint) BETWEEN lo AND hi
     AND right(c.id::text, length(suffix)) = suffix
     AND (jobscope_sees_all() OR c.tenant_id = jobscope_tenant())
   LIMIT cap
$$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION jobscope_id_suffix_match(bigint, bigint, text, integer) FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION jobscope_id_suffix_match(bigint, bigint, text, integer) TO jobscope_app, jobscope_staff;
