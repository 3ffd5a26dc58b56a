/** A page's query string as Next.js hands it over: each name's value, or its values when it repeats. */
export type SearchParams = Record<string, string | string[] | undefined>;

/** The props of a page that reads its query string (which Next.js gives as a promise). */
export type SearchParamsProps = { searchParams: Promise<SearchParams> };
