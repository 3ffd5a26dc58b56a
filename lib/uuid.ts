/**
 * A string PostgreSQL's uuid type accepts in the canonical form: asked before a
 * query, so that a malformed id is "not found" rather than a database error.
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (s: string): boolean => UUID.test(s);
