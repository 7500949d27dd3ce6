// The package's public surface: every name pkg/index.d.ts exports (values, and types as `type X`)
// is the list in tests/unit/surface.txt, so that a name is added or removed on purpose only. After
// an intended change: SURFACE_WRITE=1 node --test tests/unit/surface.test.mjs, then review the diff.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import ts from 'typescript';

const declarations = new URL('../../pkg/index.d.ts', import.meta.url).pathname;
const listFile = new URL('./surface.txt', import.meta.url).pathname;

/** The names the declarations export, sorted: `name` for a value, `type name` for a type only. */
function surface() {
  const program = ts.createProgram([declarations], { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ES2022, moduleResolution: ts.ModuleResolutionKind.Bundler, noEmit: true, skipLibCheck: true, types: [] });
  const checker = program.getTypeChecker();
  const module = checker.getSymbolAtLocation(program.getSourceFile(declarations));
  return checker
    .getExportsOfModule(module)
    .map((symbol) => {
      const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
      return target.flags & ts.SymbolFlags.Value ? symbol.name : `type ${symbol.name}`;
    })
    .sort((a, b) => a.replace(/^type /, '').localeCompare(b.replace(/^type /, '')));
}

test('the public surface is the list in surface.txt', () => {
  const names = surface();
  if (process.env.SURFACE_WRITE) writeFileSync(listFile, names.join('\n') + '\n');
  const listed = readFileSync(listFile, 'utf8').split('\n').filter(Boolean);
  assert.deepEqual(names, listed, 'pkg/index.d.ts exports other names than tests/unit/surface.txt lists (SURFACE_WRITE=1 rewrites it)');
  assert.ok(names.length > 100, `only ${names.length} names: the declarations were not read`);
});
