// The statistics every section of the benchmark prints: quantiles of samples, and how a figure and
// a ratio are written.

/** The samples in ascending order (a copy). */
export const sorted = (xs) => [...xs].sort((a, b) => a - b);

/** The `q` quantile of `xs` (linear between the two nearest samples); NaN for none. */
export function quantile(xs, q) {
  const s = sorted(xs);
  if (!s.length) return NaN;
  const at = (s.length - 1) * q;
  const lo = Math.floor(at);
  return s[lo] + (s[Math.min(lo + 1, s.length - 1)] - s[lo]) * (at - lo);
}

/** The median of `xs`. */
export const median = (xs) => quantile(xs, 0.5);

/** Milliseconds with three significant digits or so. */
export const ms = (x) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x >= 1 ? x.toFixed(2) : x.toFixed(3));

/** `a / b` as a ratio (`1.03×`). */
export const ratio = (a, b) => `${(a / b).toFixed(2)}×`;
