/**
 * A `Retry-After` header read as a delay: the rule of the REST transport (rest.ts) and of the axios
 * transport's sending half (axios/send.ts, which carries its own copy of it). Pure and stateless.
 */

/**
 * A `Retry-After` value in ms from now: delay-seconds, or an HTTP date minus now (at least 0); -1
 * when there is none or it is neither. The engine applies it to a gateway status it repeats.
 */
export function retryAfterMs(value: string | null | undefined): number {
  const text = value?.trim();
  if (!text) return -1;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? -1 : Math.max(0, at - Date.now());
}
