// The Nuxt module's wiring (pkg/nuxt/, as built), without Nuxt: what it adds to a Nuxt's options, the
// manifest hook on a manifest shaped as Nuxt 4.6.4's (the on-demand files' hints dropped, nothing
// else touched), the dev-only Vite plugin, the options' check, and the Nitro plugin's scope around a
// request (the package's /ssr, found by the package's own name). The module in a real Nuxt app:
// tests/browser/nuxt.test.mjs.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';

const module = await import('../../pkg/nuxt/module.js');
const fastapiViewsets = module.default;

/** A Nuxt's options and hooks, as far as the module reads and writes them. */
function fakeNuxt() {
  const hooks = new Map();
  return {
    hooks,
    options: { dev: false, buildDir: '/app/.nuxt', build: { templates: [] }, nitro: {}, plugins: ['~/plugins/mine.ts'], vite: { optimizeDeps: { include: ['other'] } } },
    hook: (name, handler) => hooks.set(name, handler),
  };
}

test('nuxt module: adds its plugins first, Nitro’s plugin with the forwarded headers, the optimizer’s entries, the dev plugin and the manifest hook; asks Nuxt not to transpile the package', async () => {
  const nuxt = fakeNuxt();
  assert.equal(fastapiViewsets(undefined, nuxt), false, 'false: not added to build.transpile');
  const [server, client, mine] = nuxt.options.plugins;
  assert.deepEqual([server.mode, client.mode, mine], ['server', 'client', '~/plugins/mine.ts']);
  assert.ok(fs.existsSync(server.src) && server.src.endsWith('/nuxt/plugin-server.js'), server.src);
  assert.ok(fs.existsSync(client.src) && client.src.endsWith('/nuxt/plugin-client.js'), client.src);
  assert.deepEqual(nuxt.options.nitro.plugins, ['/app/.nuxt/fastapi-viewsets-nitro.mjs']);
  const [template] = nuxt.options.build.templates;
  assert.equal(template.filename, 'fastapi-viewsets-nitro.mjs');
  assert.equal(template.write, true);
  const nitroPath = /from ("[^"]+")/.exec(template.getContents())[1];
  assert.ok(fs.existsSync(JSON.parse(nitroPath)), nitroPath);
  assert.match(template.getContents(), /scopeEachRequest\(nitroApp, \{"forwardHeaders":\["authorization","cookie"\]\}\)/);
  assert.deepEqual(nuxt.options.vite.optimizeDeps.include, ['other', '@dynamicforms/fastapi-viewsets', '@dynamicforms/fastapi-viewsets/vue']);
  const [devPlugin] = nuxt.options.vite.plugins;
  assert.equal(devPlugin.apply, 'serve');
  assert.equal(devPlugin.load('/app/node_modules/@dynamicforms/fastapi-viewsets/wasm/muxws_bg.wasm'), 'export {};', 'the bare file: no wasm ES module');
  assert.equal(devPlugin.load('/app/node_modules/@dynamicforms/fastapi-viewsets/wasm/muxws_bg.wasm?no-inline'), undefined, 'the driver’s URL: served as it is');
  assert.equal(devPlugin.load('/app/src/other_bg.wasm'), undefined, 'another wasm file: Vite’s');
  assert.equal(typeof nuxt.hooks.get('build:manifest'), 'function');
  // run twice (nuxt dev restarts): the optimizer's entries once each
  fastapiViewsets({ forwardHeaders: ['Authorization', 'X-Tenant'] }, nuxt);
  assert.deepEqual(nuxt.options.vite.optimizeDeps.include, ['other', '@dynamicforms/fastapi-viewsets', '@dynamicforms/fastapi-viewsets/vue']);
  assert.match(nuxt.options.build.templates[1].getContents(), /\{"forwardHeaders":\["authorization","x-tenant"\]\}/);
});

test('nuxt module: forwardHeaders must name headers', () => {
  assert.throws(() => fastapiViewsets({ forwardHeaders: ['bad header'] }, fakeNuxt()), /TypeError: fastapiViewsets.forwardHeaders: "bad header" is no header name/);
  assert.throws(() => fastapiViewsets({ forwardHeaders: [7] }, fakeNuxt()), TypeError);
});

test('nuxt module: the manifest hook drops the hints of the package’s on-demand files only (a manifest as Nuxt 4.6.4 makes it)', () => {
  const base = '../node_modules/@dynamicforms/fastapi-viewsets';
  const script = (file, extra = {}) => ({ file, resourceType: 'script', module: true, prefetch: true, preload: true, ...extra });
  const manifest = {
    'pages/index.vue': script('CsZsKdLC.js', { assets: ['axios-send.DhWQiMGq.js', 'follow-engine.D8aLe78h.js', 'schema-check.Dncy5pUW.js', 'logo.abc.js'] }),
    [`${base}/axios-send.js`]: script('axios-send.DhWQiMGq.js', { src: `${base}/axios-send.js` }),
    [`${base}/follow-engine.js`]: script('follow-engine.D8aLe78h.js', { src: `${base}/follow-engine.js` }),
    [`${base}/schema-check.js`]: script('schema-check.Dncy5pUW.js', { src: `${base}/schema-check.js` }),
    [`${base}/live/live-list.js`]: script('live-list.BSHd1qo2.js', { src: `${base}/live/live-list.js` }),
    [`${base}/wasm/muxws_bg.wasm`]: { prefetch: true, file: 'muxws_bg.B-7Of6FX.wasm', src: `${base}/wasm/muxws_bg.wasm` },
    'axios-send.DhWQiMGq.js': script('axios-send.DhWQiMGq.js'),
    'follow-engine.D8aLe78h.js': script('follow-engine.D8aLe78h.js'),
    'schema-check.Dncy5pUW.js': script('schema-check.Dncy5pUW.js'),
    // an app's own file of the same name is not the package's
    'app/schema-check.ts': script('schema-check.Q1w2e3r4.js', { src: 'app/schema-check.ts' }),
    'logo.abc.js': script('logo.abc.js'),
  };
  const nuxt = fakeNuxt();
  fastapiViewsets(undefined, nuxt);
  nuxt.hooks.get('build:manifest')(manifest);
  const hinted = Object.entries(manifest).filter(([, resource]) => resource.preload || resource.prefetch).map(([id]) => id);
  assert.deepEqual(hinted, ['pages/index.vue', 'app/schema-check.ts', 'logo.abc.js']);
  assert.deepEqual(manifest['pages/index.vue'].assets.length, 4, 'the assets stay listed (Nitro serves them)');
});

test('nuxt module’s Nitro plugin: each request runs in a scope of its own with its forwarded headers, closed once the handler is done', async () => {
  const { scopeEachRequest, forwarded } = await import('../../pkg/nuxt/nitro.js');
  const { requestScope } = await import('../../pkg/ssr/index.js');
  const seen = [];
  const nitroApp = {
    h3App: {
      handler: async (event) => {
        const scope = requestScope();
        await new Promise((resolve) => setTimeout(resolve, 5));
        seen.push({ same: requestScope() === scope, given: event.context.fastapiViewsetsScope === scope, closed: scope.closed });
        if (event.fail) throw new Error('handler failed');
        return scope;
      },
    },
  };
  scopeEachRequest(nitroApp, { forwardHeaders: ['authorization', 'cookie'] });
  const event = (headers, fail = false) => ({ node: { req: { headers } }, context: {}, fail });
  const [a, b] = await Promise.all([nitroApp.h3App.handler(event({ authorization: 'Bearer a' })), nitroApp.h3App.handler(event({ authorization: 'Bearer b' }))]);
  assert.notEqual(a, b, 'a scope per request');
  assert.deepEqual(seen, [{ same: true, given: true, closed: false }, { same: true, given: true, closed: false }]);
  assert.ok(a.closed && b.closed, 'closed once the handler is done');
  await assert.rejects(nitroApp.h3App.handler(event({}, true)), /handler failed/);
  assert.equal(requestScope(), undefined, 'outside every request: no request scope');
  assert.deepEqual(forwarded(event({ authorization: 'Bearer a', cookie: ['a=1', 'b=2'], 'x-other': 'no' }), ['authorization', 'cookie']), { authorization: 'Bearer a', cookie: 'a=1, b=2' });
});

test('nuxt module: in `nuxt dev` a client plugin mounts the devtools (after the module’s own two) and the optimizer is told of the subpath; `devtools: false` and a build add neither', () => {
  const dev = fakeNuxt();
  dev.options.dev = true;
  fastapiViewsets(undefined, dev);
  const [server, client, devtools, mine] = dev.options.plugins;
  assert.deepEqual([server.mode, client.mode, devtools.mode, mine], ['server', 'client', 'client', '~/plugins/mine.ts']);
  assert.ok(fs.existsSync(devtools.src) && devtools.src.endsWith('/nuxt/plugin-devtools.js'), devtools.src);
  assert.match(fs.readFileSync(devtools.src, 'utf8'), /from ["']@dynamicforms\/fastapi-viewsets\/devtools["'][\s\S]*mountDevtools\(\)/);
  assert.ok(dev.options.vite.optimizeDeps.include.includes('@dynamicforms/fastapi-viewsets/devtools'));
  const off = fakeNuxt();
  off.options.dev = true;
  fastapiViewsets({ devtools: false }, off);
  const built = fakeNuxt();
  fastapiViewsets({ devtools: true }, built);
  for (const nuxt of [off, built]) {
    assert.ok(!nuxt.options.plugins.some((plugin) => /devtools/.test(plugin.src ?? plugin)), JSON.stringify(nuxt.options.plugins));
    assert.ok(!nuxt.options.vite.optimizeDeps.include.some((entry) => entry.endsWith('/devtools')));
  }
});
