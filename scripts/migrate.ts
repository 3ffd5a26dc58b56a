// `npm run db:migrate`: apply the committed migrations to DATABASE_URL.
import { databaseUrl } from "../lib/db/client";
import { migrateDatabase } from "../lib/db/migrate";

await migrateDatabase(databaseUrl());
console.log("migrated");
