/**
 * The pages of a keyset scan, each next page requested as soon as the previous one arrives, so
 * that the server reads it while the caller works through the current one (at start the index
 * build and the server's reads then share the two cores instead of taking turns). At most two
 * pages are held. A page shorter than `pageSize` is the last.
 */
export async function* prefetchedPages<T>(fetchAfter: (last: T | null) => Promise<T[]>, pageSize: number): AsyncGenerator<T[]> {
  let next = fetchAfter(null);
  for (;;) {
    const page = await next;
    const more = page.length >= pageSize;
    if (more) {
      next = fetchAfter(page[page.length - 1]!);
      next.catch(() => {}); // awaited on the next turn; a caller that stops early must not leave it unhandled
    }
    yield page;
    if (!more) return;
  }
}
