/**
 * The "now" a page's time-bound query is asked for with: set by the page's loader at the click, then
 * taken once by the page as it opens, so the page's first call is the very call the loader started
 * (api.ts's callAhead matches calls by their whole query). A page opened without its loader (its
 * address typed) takes its own.
 */
export function openingTime() {
  let at: Date | undefined;
  return {
    start(): Date {
      at = new Date();
      return at;
    },
    take(): Date {
      const taken = at ?? new Date();
      at = undefined;
      return taken;
    },
  };
}
