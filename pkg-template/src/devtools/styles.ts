/**
 * The panel's styles, adopted by its shadow root as a constructed stylesheet
 * (`adoptedStyleSheets`): no `<style>` element and no `style` attribute, so a page whose policy is
 * `style-src 'self'` (no 'unsafe-inline') shows it as it is, and the app's styles do not reach in.
 */
const CSS = `
:host { all: initial; position: fixed; right: 8px; bottom: 8px; z-index: 2147483000; font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; color: #1b1f24; }
* { box-sizing: border-box; }
[hidden] { display: none !important; }
button { font: inherit; border: 1px solid #8c959f; background: #f6f8fa; border-radius: 4px; padding: 2px 6px; cursor: pointer; color: inherit; }
button[aria-pressed="true"] { background: #0969da; color: #fff; border-color: #0969da; }
button.danger[aria-pressed="true"] { background: #cf222e; border-color: #cf222e; }
button:disabled { opacity: .5; cursor: default; }
input { font: inherit; border: 1px solid #8c959f; border-radius: 4px; padding: 1px 4px; width: 12em; }
.toggle { box-shadow: 0 1px 4px rgba(0,0,0,.3); }
.toggle.busy { background: #fff8c5; }
.panel { position: fixed; right: 8px; bottom: 40px; width: min(920px, calc(100vw - 16px)); height: min(520px, calc(100vh - 56px)); background: #fff; border: 1px solid #8c959f; border-radius: 6px; box-shadow: 0 4px 16px rgba(0,0,0,.25); display: flex; flex-direction: column; overflow: hidden; contain: strict; }
.panel[hidden] { display: none; }
.bar { display: flex; flex-wrap: wrap; gap: 4px; align-items: center; padding: 4px 6px; border-bottom: 1px solid #d0d7de; background: #f6f8fa; }
.bar .title { font-weight: bold; margin-right: 6px; }
.bar .gap { flex: 1; }
.body { flex: 1; display: flex; min-height: 0; }
.list { flex: 1 1 55%; overflow: auto; border-right: 1px solid #d0d7de; }
.detail { flex: 1 1 45%; overflow: auto; padding: 6px; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 2px 4px; white-space: nowrap; border-bottom: 1px solid #eaeef2; }
th { position: sticky; top: 0; background: #fff; }
tr.call { cursor: pointer; }
tr.call:hover { background: #f6f8fa; }
tr.call.selected { background: #ddf4ff; }
tr.call.failed td.state { color: #cf222e; }
tr.call.waiting td.state { color: #9a6700; }
.key { color: #57606a; }
.note { color: #57606a; padding: 4px 6px; }
.live { padding: 6px; overflow: auto; flex: 1; }
.live h3 { font-size: 12px; margin: 8px 0 2px; }
svg.timeline { display: block; }
svg.timeline text { font: 10px ui-monospace, monospace; fill: #1b1f24; }
svg.timeline .lane-title { fill: #57606a; }
svg.timeline .attempt rect { fill: #8c959f; }
svg.timeline .end-answered rect { fill: #2da44e; }
svg.timeline .end-open rect { fill: #0969da; }
svg.timeline .end-gateway rect, svg.timeline .end-connection-lost rect, svg.timeline .end-timeout rect, svg.timeline .end-refused rect { fill: #cf222e; }
svg.timeline .end-answer-lost rect { fill: #8250df; }
svg.timeline .end-abandoned rect, svg.timeline .end-cancelled rect { fill: #bf8700; }
svg.timeline .attempt-label { fill: #fff; }
svg.timeline .wait line { stroke: #57606a; stroke-dasharray: 3 3; }
svg.timeline .waiting line { stroke: #9a6700; }
svg.timeline .wait-label { fill: #9a6700; }
ol.attempts { margin: 4px 0; padding-left: 4px; list-style: none; }
ol.attempts li.wait { color: #9a6700; padding-left: 12px; }
`;

let sheet: CSSStyleSheet | undefined;

/** The panel's stylesheet (one per page). */
export function styles(): CSSStyleSheet {
  if (!sheet) {
    sheet = new CSSStyleSheet();
    sheet.replaceSync(CSS);
  }
  return sheet;
}
