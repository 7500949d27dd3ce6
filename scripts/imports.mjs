// The house's import graph, checked: no circle anywhere, and in the TypeScript facade no import
// from a lower layer to a higher one. Prints what it read, and the largest source file that is not
// a test. Exits 1 on a violation (a circle, an upward import, a facade file in no layer).
//   node scripts/imports.mjs
// TypeScript: every `import … from './x.js'`, `export … from './x.js'` and `import('./x.js')` of
// pkg-template/src (type-only imports count: a circle of types is still a circle of concepts).
// Rust: within each crate, module A depends on module B when A's files name `crate::B` (a module is
// a top-level file `src/B.rs` with its folder `src/B/`); between crates, Cargo refuses circles.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;

/**
 * The facade's layers, lowest first: a file imports only files of its own layer or a lower one.
 * A new file goes into the layer of what it is.
 */
const LAYERS = [
  // vocabulary: the rendered boundary tables, the clock, reading caller values, headers, bodies
  ['shared/values', 'shared/retry-after', 'shared/indexed-db', 'abi/calls', 'abi/muxws', 'clock', 'caller', 'headers', 'body', 'muxws/wasm-loader', 'chunk'],
  // what the runtime stands on: errors, the loaded calls module, the timer, the online source, the calls' vocabulary (types)
  ['errors', 'abi/muxws-errors', 'calls', 'timer', 'online', 'vocabulary/call-types'],
  // the call runtime: the one owner of every call's record
  ['runtime'],
  // transports and what reads the runtime: REST, axios, muxws (the driver and its kit), activity
  ['rest', 'axios-services', 'axios/send', 'axios', 'peer-source', 'muxws-kit', 'activity', 'unload', 'translate'],
  // the muxws driver (a chunk of its own, loaded by connectMuxws()): the module, then the peer's parts
  ['muxws/module'],
  ['muxws/listeners', 'muxws/socket', 'muxws/stream', 'muxws/options'],
  ['muxws/calls'],
  ['muxws/peer'],
  ['muxws/driver'],
  // composing calls, and the public muxws API
  ['compose', 'muxws'],
  // options (types), mixins, the built-in actions, persistence, the schema check, live data
  ['vocabulary/options', 'mixins', 'actions', 'persist', 'schema-check/check', 'schema', 'vocabulary/events', 'follow-services'],
  // the follower's chunk (follow/: loaded by the first follow(), watch() or applyChanges()): the engine, then its driver
  ['follow/backoff', 'follow/engine', 'follow/wire', 'follow/persist', 'follow/channel', 'follow/apply-changes'],
  ['follow/index'],
  ['follow'],
  // the proxies' base class and factories; 0.6's shapes
  ['viewset'],
  // live lists over the proxies: their types, the chunk (live/live-list.js), its services, and
  // liveList(), which an app that calls it ships (live/index)
  ['vocabulary/live-types', 'live/live-list', 'live-services', 'live'],
  ['proxies'],
  // everything the package keeps, made afresh for tests
  ['fresh'],
  // the package's entry
  ['index'],
  // the Vue subpath (@dynamicforms/fastapi-viewsets/vue): composables over the entry, which it
  // imports by the package's name
  ['vue/index'],
];

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
const layerOf = new Map(LAYERS.flatMap((names, layer) => names.map((name) => [name, layer])));
const tsGraph = new Map();
let tsEdges = 0;
for (const file of files(facade, (name) => name.endsWith('.ts') && !name.endsWith('.d.ts'))) {
  const node = file.replace(/\.ts$/, '');
  if (node.startsWith('wasm/')) continue;
  const text = readFileSync(join(facade, file), 'utf8');
  const targets = new Set();
  for (const match of text.matchAll(/(?:from\s+|import\()\s*'(\.{1,2}\/[^']+)\.js'/g)) {
    const target = join(node, '..', match[1]).replace(/^\.\//, '');
    if (!target.startsWith('wasm/')) targets.add(target);
  }
  tsGraph.set(node, targets);
  tsEdges += targets.size;
  if (!layerOf.has(node)) failures.push(`pkg-template/src/${file}: in no layer (scripts/imports.mjs, LAYERS)`);
  for (const target of targets) {
    if (layerOf.has(node) && layerOf.has(target) && layerOf.get(target) > layerOf.get(node)) {
      failures.push(`pkg-template/src/${file} imports ${target}, a higher layer (${layerOf.get(target)} > ${layerOf.get(node)})`);
    }
  }
}
for (const circle of circles(tsGraph)) failures.push(`circle in pkg-template/src: ${circle}`);
console.log(`imports: pkg-template/src: ${tsGraph.size} files, ${tsEdges} imports, ${LAYERS.length} layers`);

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
console.log('imports: no circle, no upward import');
