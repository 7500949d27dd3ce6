// The house's import graph, checked: no circle anywhere (type imports included: a circle of types is
// still a circle of concepts), and in the TypeScript facade the rules of its folders, which show what
// ships together. Prints each folder (its files, the imports into and out of it, what it imports from
// outside, its floors) and the largest source file that is not a test. Exits 1 on a violation.
//   node scripts/imports.mjs
// TypeScript: every `import … from './x.js'`, `export … from './x.js'` and `import('./x.js')` of
// pkg-template/src, each either a value import (what the compiled module still imports) or a type
// import (`import type`, `export type`, names that are only types or const enums, which tsc erases,
// and `typeof import(…)`), or a load (`import('./x.js')` at run time, the muxws driver's chunk).
// Rust: within each crate, module A depends on module B when A's files name `crate::B` (a module is
// a top-level file `src/B.rs` with its folder `src/B/`); between crates, Cargo refuses circles.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;

/**
 * The facade's folders. The top level is the entry (index.js and what it links); each chunk folder
 * holds exactly the files of one file the package ships on its own, loaded on demand (its entry
 * named here). `vocabulary/` is the types every side shares, `shared/` pure rules any bundle may
 * import by value (naming the vocabulary's types at most) (a chunk bundled on its own then carries its own copy), `abi/` the tables rendered
 * from Rust, `vue/` the Vue subpath and `ssr/` the server subpath (each imports the package by its name).
 */
const CHUNKS = {
  muxws: { entry: 'muxws/driver', ships: 'muxws-driver.js (a dynamic import in index.js\'s build)' },
  follow: { entry: 'follow/index', ships: 'follow-engine.js' },
  axios: { entry: 'axios/send', ships: 'axios-send.js' },
  'schema-check': { entry: 'schema-check/check', ships: 'schema-check.js' },
  live: { entry: 'live/live-list', ships: 'live/live-list.js' },
  'live-paged': { entry: 'live-paged/index', ships: 'live/paged.js (loaded by the live list once a list turns out paged)' },
  devtools: { entry: 'devtools/panel', ships: 'devtools/panel.js (loaded by the devtools subpath)' },
};
/** The folders that are no chunk, and what each is. */
const OTHERS = { '': 'index.js', vocabulary: 'types only', shared: 'pure rules', abi: 'generated tables', vue: 'the Vue subpath, vue/index.js', 'devtools-subpath': 'the devtools subpath, devtools/index.js and its stub devtools/stub.js', ssr: 'the server subpath (Node only), ssr/index.js', nuxt: 'the Nuxt module, nuxt/module.js, and its plugins' };
/**
 * The one rendered file of the entry's: the muxws error classes by code (abi/muxws-errors.ts, which
 * imports errors.ts's classes), rendered beside the tables but linked by the entry only and handed to
 * the driver among its services. A chunk does not import it by value, and it may import errors.ts.
 */
const ENTRY_SIDE_ABI = new Set(['abi/muxws-errors']);

const failures = [];

/** Every file below `dir` whose name passes `keep`, as paths relative to `dir`. */
function files(dir, keep) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...files(full, keep).map((file) => join(name, file)));
    else if (keep(name)) out.push(name);
  }
  return out;
}

/** The circles of a graph (Map node -> Set of nodes), each as a path, found by depth-first search. */
function circles(graph) {
  const state = new Map();
  const found = [];
  const visit = (node, path) => {
    state.set(node, 'open');
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') found.push([...path.slice(path.indexOf(next)), next].join(' -> '));
      else if (!state.has(next)) visit(next, [...path, next]);
    }
    state.set(node, 'done');
  };
  for (const node of graph.keys()) if (!state.has(node)) visit(node, [node]);
  return found;
}

// ----------------------------------------------------------------------------- the TS facade
const facade = join(root, 'pkg-template', 'src');
const folderOf = (node) => (node.includes('/') ? node.split('/')[0] : '');
const shown = (folder) => (folder === '' ? 'entry' : `${folder}/`);
const sourceOf = new Map();
for (const file of files(facade, (name) => name.endsWith('.ts') && !name.endsWith('.d.ts'))) {
  const node = file.replace(/\.ts$/, '');
  if (!node.startsWith('wasm/')) sourceOf.set(node, readFileSync(join(facade, file), 'utf8'));
}

/** The names `node` exports as values (not types, not const enums, which tsc erases), `export *` followed. */
const valueNames = new Map();
function valuesOf(node, seen = new Set()) {
  if (valueNames.has(node)) return valueNames.get(node);
  const names = new Set();
  const text = sourceOf.get(node) ?? '';
  for (const m of text.matchAll(/^export\s+(?:declare\s+)?(?:abstract\s+)?(?:async\s+)?(?:function\*?|class|let|var|enum|const(?!\s+enum))\s+([A-Za-z_$][\w$]*)/gm)) names.add(m[1]);
  for (const m of text.matchAll(/^export\s+\{([^}]*)\}/gm)) {
    for (const spec of m[1].split(',').map((x) => x.trim()).filter(Boolean)) {
      if (!spec.startsWith('type ')) names.add(spec.split(/\s+as\s+/).pop().trim());
    }
  }
  for (const m of text.matchAll(/^export\s+\*\s+from\s+'(\.{1,2}\/[^']+)\.js'/gm)) {
    const target = join(node, '..', m[1]);
    if (!seen.has(target)) for (const name of valuesOf(target, new Set([...seen, node]))) names.add(name);
  }
  valueNames.set(node, names);
  return names;
}

/** Every import of `node`: { target, kind: 'value' | 'type' | 'load' }. */
function importsOf(node) {
  const text = sourceOf.get(node);
  const out = [];
  const add = (spec, kind) => {
    const target = join(node, '..', spec).replace(/^\.\//, '');
    if (!target.startsWith('wasm/')) out.push({ target, kind });
  };
  // import / export … from: a statement, over lines
  for (const m of text.matchAll(/^(import|export)\s+(type\s+)?([^;'"]*?)\s*from\s+'(\.{1,2}\/[^']+)\.js'/gm)) {
    const [, , typeOnly, clause, spec] = m;
    const target = join(node, '..', spec);
    let kind = 'value';
    if (typeOnly) kind = 'type';
    else {
      const braces = /\{([^}]*)\}/.exec(clause);
      const outside = clause.replace(/\{[^}]*\}/, '').replace(/,/g, '').trim();
      if (braces && !outside && !clause.startsWith('*')) {
        // `{ a, type B }`: a value import when one of the names is a value of the target
        const names = braces[1].split(',').map((x) => x.trim()).filter(Boolean).filter((x) => !x.startsWith('type '));
        const values = valuesOf(target);
        if (!names.some((name) => values.has(name.split(/\s+as\s+/)[0].trim()))) kind = 'type';
      }
    }
    add(spec, kind);
  }
  for (const m of text.matchAll(/(typeof\s+)?import\(\s*(?:\/\*[^*]*\*\/\s*)*'(\.{1,2}\/[^']+)\.js'\s*\)/g)) add(m[2], m[1] ? 'type' : 'load');
  return out;
}

const edges = new Map([...sourceOf.keys()].map((node) => [node, importsOf(node)]));
const tsGraph = new Map([...edges].map(([node, list]) => [node, new Set(list.map((edge) => edge.target))]));
const valueGraph = new Map([...edges].map(([node, list]) => [node, new Set(list.filter((edge) => edge.kind === 'value').map((edge) => edge.target))]));
for (const [node, list] of edges) {
  for (const { target } of list) if (!sourceOf.has(target)) failures.push(`pkg-template/src/${node}.ts imports ${target}, which is no file`);
}

/** What `from` reaches over value imports (itself included). */
function reach(from) {
  const seen = new Set([from]);
  const stack = [from];
  while (stack.length) for (const next of valueGraph.get(stack.pop()) ?? []) if (!seen.has(next)) seen.add(next), stack.push(next);
  return seen;
}
const entryReach = reach('index');

// The rules of the folders.
for (const [node, list] of edges) {
  const folder = folderOf(node);
  const at = `pkg-template/src/${node}.ts`;
  for (const { target, kind } of list) {
    const to = folderOf(target);
    if (to === folder) continue;
    if (folder in CHUNKS) {
      // A chunk is bundled on its own (or, the driver, split off index.js's build): what it needs of
      // the entry comes in its services (follow-services.ts, muxws-kit.ts, axios-services.ts,
      // live-services.ts), typed by the entry's interfaces, so that no code of the entry is copied
      // into it and nothing in it imports index.js back. shared/ and abi/ are pure code and tables
      // the chunk may carry its own copy of; the driver is in index.js's build, where a value import
      // of a file index.js links too would split off a shared chunk (one more file, one more round
      // trip before every app's first call): it takes even those as services.
      if (kind === 'load') failures.push(`${at} loads ${target}: a chunk loads no other chunk`);
      else if (kind === 'value' && to !== 'shared' && (to !== 'abi' || ENTRY_SIDE_ABI.has(target))) failures.push(`${at} imports ${target} by value: a chunk imports only types from outside its folder (and shared/, abi/)`);
      else if (kind === 'value' && folder === 'muxws' && entryReach.has(target)) failures.push(`${at} imports ${target} by value, which index.js links too: the driver's chunk would share a chunk with index.js (hand it in with muxwsServices)`);
    } else if (folder === '') {
      if (to in CHUNKS && kind === 'value') failures.push(`${at} imports ${target} by value: the entry imports a chunk only by type, by its URL or by a dynamic import`);
      if (to === 'vue' || to === 'devtools-subpath' || to === 'ssr') failures.push(`${at} imports ${target}: the ${to} subpath is above the entry`);
    } else if (folder === 'vocabulary') {
      if (kind !== 'type') failures.push(`${at} imports ${target} by value: the vocabulary is types only`);
    } else if (folder === 'shared' || folder === 'abi') {
      // (shared/ may name the vocabulary's types: tsc erases them, and a chunk's copy stays pure code)
      if (folder === 'shared' && to === 'vocabulary' && kind === 'type') continue;
      if (!(ENTRY_SIDE_ABI.has(node) && target === 'errors')) failures.push(`${at} imports ${target}: ${shown(folder)} imports nothing outside it but the vocabulary's types`);
    } else if (folder === 'vue' || folder === 'devtools-subpath' || folder === 'ssr') {
      if (kind !== 'type') failures.push(`${at} imports ${target} by value: the ${folder} subpath imports the package by its name`);
    } else {
      failures.push(`${at}: in no folder the check knows (scripts/imports.mjs, CHUNKS and OTHERS)`);
    }
  }
  if (folder === 'vocabulary' && valuesOf(node).size) failures.push(`${at} exports values (${[...valuesOf(node)].join(', ')}): the vocabulary is types only`);
}
// Each chunk folder holds exactly what its entry links: no file of it that ships in no chunk.
for (const [folder, { entry }] of Object.entries(CHUNKS)) {
  if (!sourceOf.has(entry)) failures.push(`pkg-template/src/${entry}.ts, the entry of ${folder}/, is no file`);
  const linked = reach(entry);
  for (const node of sourceOf.keys()) if (folderOf(node) === folder && !linked.has(node)) failures.push(`pkg-template/src/${node}.ts is in ${folder}/ but not linked by ${entry}.ts: it ships in no chunk`);
}
for (const circle of circles(tsGraph)) failures.push(`circle in pkg-template/src: ${circle}`);

/** Floors over value imports only: a file with none is on floor 1, any other one floor above the highest it imports. */
function floors(graph, keep = () => true) {
  const floor = new Map();
  const of = (node, path = new Set()) => {
    if (floor.has(node)) return floor.get(node);
    if (path.has(node)) return 0; // a circle, reported above
    path.add(node);
    let height = 1;
    for (const next of graph.get(node) ?? []) if (keep(next)) height = Math.max(height, of(next, path) + 1);
    path.delete(node);
    floor.set(node, height);
    return height;
  };
  for (const node of graph.keys()) if (keep(node)) of(node);
  return floor;
}
const whole = floors(valueGraph);
const withTypes = floors(tsGraph);
const count = (edges) => edges.length;
const all = [...edges.values()].flat();
console.log(
  `imports: pkg-template/src: ${sourceOf.size} files, ${count(all)} imports (${all.filter((e) => e.kind === 'value').length} of values, ${all.filter((e) => e.kind === 'type').length} of types, ${all.filter((e) => e.kind === 'load').length} loads); ` +
    `${Math.max(...whole.values())} floors of value imports (${Math.max(...withTypes.values())} if type imports counted)`,
);
const order = ['', ...Object.keys(CHUNKS), ...Object.keys(OTHERS).slice(1)];
const folders = [...new Set([...sourceOf.keys()].map(folderOf))].sort((a, b) => (order.indexOf(a) + 1 || 99) - (order.indexOf(b) + 1 || 99));
for (const folder of folders) {
  const nodes = [...sourceOf.keys()].filter((node) => folderOf(node) === folder);
  const out = nodes.flatMap((node) => edges.get(node).filter((edge) => folderOf(edge.target) !== folder));
  const into = [...edges].filter(([node]) => folderOf(node) !== folder).flatMap(([, list]) => list.filter((edge) => folderOf(edge.target) === folder));
  const inside = floors(valueGraph, (node) => folderOf(node) === folder);
  const what = folder in CHUNKS ? `chunk: ${CHUNKS[folder].ships}` : OTHERS[folder] ?? '?';
  const by = (list, kind) => list.filter((edge) => edge.kind === kind).length;
  console.log(
    `imports: ${shown(folder)} (${what}): ${nodes.length} files; ${out.length} imports out (${by(out, 'value')} values, ${by(out, 'type')} types, ${by(out, 'load')} loads), ${into.length} in (${by(into, 'value')} values); ` +
      `${Math.max(...inside.values())} floors inside, top at floor ${Math.max(...nodes.map((node) => whole.get(node)))} of the whole`,
  );
  const outside = new Map();
  for (const { target, kind } of out) outside.set(target, outside.get(target) === 'value' || kind === 'value' ? 'value' : outside.get(target) === 'load' || kind === 'load' ? 'load' : 'type');
  const list = [...outside].sort(([a], [b]) => a.localeCompare(b)).map(([target, kind]) => `${target}${kind === 'value' ? '' : ` (${kind})`}`);
  if (list.length) console.log(`imports:   from outside: ${list.join(', ')}`);
}

// ----------------------------------------------------------------------------- the Rust crates
const crates = [['.', 'src'], ...readdirSync(join(root, 'crates')).map((name) => [join('crates', name), join('crates', name, 'src')])];
for (const [crate, src] of crates) {
  const dir = join(root, src);
  let all;
  try {
    all = files(dir, (name) => name.endsWith('.rs'));
  } catch {
    continue;
  }
  const graph = new Map();
  const moduleOf = (file) => file.split('/')[0].replace(/\.rs$/, '');
  for (const file of all) {
    const module = moduleOf(file);
    if (module === 'lib' || module === 'main') continue;
    const text = readFileSync(join(dir, file), 'utf8');
    const targets = graph.get(module) ?? new Set();
    for (const match of text.matchAll(/\bcrate::([a-z_][a-z0-9_]*)/g)) if (match[1] !== module) targets.add(match[1]);
    for (const match of text.matchAll(/\buse crate::\{([^}]*)\}/g)) {
      for (const name of match[1].split(',')) {
        const first = name.trim().split('::')[0];
        if (/^[a-z_][a-z0-9_]*$/.test(first) && first !== module) targets.add(first);
      }
    }
    graph.set(module, targets);
  }
  for (const circle of circles(graph)) failures.push(`circle in ${crate}: ${circle}`);
  console.log(`imports: ${crate}: ${graph.size} modules, ${[...graph.values()].reduce((n, s) => n + s.size, 0)} module dependencies`);
}

// ----------------------------------------------------------------------------- the largest file
const sources = [
  ...files(facade, (name) => name.endsWith('.ts')).map((file) => join('pkg-template', 'src', file)),
  ...crates.flatMap(([, src]) => {
    try {
      return files(join(root, src), (name) => name.endsWith('.rs')).map((file) => join(src, file));
    } catch {
      return [];
    }
  }),
].filter((file) => !/(^|\/)tests?(\.rs|\/)|\/wasm\//.test(file));
const sized = sources.map((file) => [file, readFileSync(join(root, file), 'utf8').split('\n').length - 1]).sort((a, b) => b[1] - a[1]);
console.log(`imports: the largest non-test source file: ${relative('.', sized[0][0]) || sized[0][0]} (${sized[0][1]} lines)`);

if (failures.length) {
  for (const failure of failures) console.error(`imports: ${failure}`);
  process.exit(1);
}
console.log('imports: no circle, every folder within its rules');
