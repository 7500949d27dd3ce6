/**
 * Making the panel's elements: HTML in its shadow root, SVG for the timeline. Attributes are set one
 * by one (never a `style` attribute, which `style-src 'self'` refuses; never markup parsed from text).
 */

/** An HTML element with attributes (a `false`/null/undefined one left out) and children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string | number | boolean | null | undefined> = {},
  ...children: (Node | string | null | undefined | false)[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) if (value !== false && value != null) element.setAttribute(name, value === true ? '' : String(value));
  for (const child of children) if (child !== null && child !== undefined && child !== false) element.append(child);
  return element;
}

const SVG = 'http://www.w3.org/2000/svg';

/** An SVG element with attributes and children. */
export function s(tag: string, attributes: Record<string, string | number | null | undefined> = {}, ...children: (Node | string | null)[]): SVGElement {
  const element = document.createElementNS(SVG, tag) as SVGElement;
  for (const [name, value] of Object.entries(attributes)) if (value != null) element.setAttribute(name, String(value));
  for (const child of children) if (child !== null) element.append(child);
  return element;
}

/** A duration as the panel shows it: `850 ms`, `1.2 s`, `3 min`. */
export function duration(ms: number): string {
  const value = Math.max(0, ms);
  return value < 1000 ? `${Math.round(value)} ms` : value < 60_000 ? `${(value / 1000).toFixed(1)} s` : `${Math.round(value / 60_000)} min`;
}
