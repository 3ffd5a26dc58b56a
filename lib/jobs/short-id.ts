/**
 * The short form of a job id that the console prints: its last 8 hex digits. Job ids are
 * time-ordered (UUID version 7, lib/jobs/ids.ts): their first 8 digits are the submit time in
 * units of about 65 seconds, the same for every job of a burst; the last ones are random.
 */
export const shortId = (id: string): string => id.slice(-8);
