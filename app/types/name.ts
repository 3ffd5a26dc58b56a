/** A job type's name as a URL may carry it: what job_catalog.type holds (letters, digits, `._:-`), at most 200 characters. */
export const TYPE_NAME = /^[\w.:-]{1,200}$/;
