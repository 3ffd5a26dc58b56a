// `npm run user:create -- --email you@example.com --name "Your Name" --role admin`: create a user
// who signs in with email and password, as the owner (DATABASE_URL, or the running embedded
// PostgreSQL), audited. A deployment starts with no user at all: this is how its first admin is
// made. The password is read from standard input when it is piped (`--password-stdin`), or else
// generated and printed once.
import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import { ZodError } from "zod";
import { recordAudit } from "../lib/audit/audit";
import { createUser } from "../lib/auth/users";
import { closeDb, connect, databaseUrl } from "../lib/db/client";
import { describeInvalid } from "../lib/result";

const { values } = parseArgs({
  options: {
    email: { type: "string" },
    name: { type: "string" },
    role: { type: "string", default: "admin" },
    tenant: { type: "string" },
    owner: { type: "boolean", default: false },
    "password-stdin": { type: "boolean", default: false },
  },
});
if (!values.email) {
  console.error(
    'usage: npm run user:create -- --email you@example.com [--name "Your Name"] [--role admin|operator|support|tenant] [--tenant ID [--owner]] [--password-stdin]',
  );
  process.exit(2);
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks)
    .toString("utf8")
    .replace(/\r?\n$/, "");
}

const generated = !values["password-stdin"];
const password = generated ? randomBytes(18).toString("base64url") : await readStdin();
const db = connect(databaseUrl(), { max: 1, appName: "jobscope-create-user" });
try {
  const user = await db.transaction(async (tx) => {
    const u = await createUser(tx, {
      email: values.email!,
      name: values.name ?? values.email!.split("@")[0]!,
      password,
      role: values.role as "admin",
      tenantId: values.tenant ?? null,
      tenantOwner: values.owner,
    });
    await recordAudit(tx, {
      userId: null,
      actor: "command line (npm run user:create)",
      role: null,
      tenantId: null,
      via: "console",
      action: "admin.user.create",
      outcome: "applied",
      reason: `created ${u.email} (${u.role}${u.tenantId ? `, tenant ${u.tenantId}` : ""}) from the command line`,
    });
    return u;
  });
  console.log(`[jobscope] created ${user.email} (${user.role}${user.tenantId ? `, tenant ${user.tenantId}` : ""})`);
  if (generated) console.log(`[jobscope] password (shown once; they can change it after signing in): ${password}`);
} catch (err) {
  const why = err instanceof ZodError ? describeInvalid(err, { most: err.issues.length }) : err instanceof Error ? err.message : String(err);
  console.error(`[jobscope] could not create the user: ${why}`);
  process.exitCode = 1;
} finally {
  await closeDb(db);
}
