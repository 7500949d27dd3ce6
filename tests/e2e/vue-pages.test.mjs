// useLiveList over lists bigger than a page (issue 38), in Node 20 in an effect scope of the real Vue
// runtime, against the real backend (tests/backend/big.py: 5 000 rows, 100 a page): loadMore(),
// the window's state and total as refs; params in a ref start the window again from the first page.
// The subpath imports the package by its name; a resolve hook points that name at pkg/ (as
// tests/e2e/vue-node.test.mjs does).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { startStack } from '../harness/stack.mjs';
import { pkg } from './pkg-by-name.mjs';
import { waitUntil } from './control.mjs';
import { other } from './events-scenarios.mjs';

const vue = await import('vue');
const { useLiveList } = await import('../../pkg/vue/index.js');

let stack;
before(async () => {
  stack = await startStack();
});
after(async () => {
  await stack?.stop();
});

/** `waitUntil` with 8 s: pages of the 5 000 rows read on a loaded machine. */
const until = (check, what, ms = 8000) => waitUntil(check, what, ms);

const Pages = pkg.restViewSet()('id', [pkg.PaginatedListMixin, pkg.RetrieveMixin, pkg.UpdateMixin, pkg.DestroyMixin, pkg.CreateMixin]);

test('vue in node: useLiveList of a paginated list — loadMore, window and total as refs; params in a ref start the window again', async () => {
  await other(stack.baseUrl, 'POST', '/__test/big/seed');
  const rows = new Pages({ basePath: '/catalog/big-pages', baseUrl: stack.baseUrl, schemaCheck: false });
  const params = vue.ref({ sort: 'rank' });
  const scope = vue.effectScope();
  const live = scope.run(() => useLiveList(rows, params, { pollIntervalMs: 200 }));
  try {
    assert.equal(live.window.value, 'loading-first-page');
    await live.list.value.ready;
    await until(() => live.rows.value.length === 100, () => `the first page: ${live.rows.value.length}`);
    assert.equal(live.window.value, 'can-load-more');
    assert.equal(live.total.value, 5000, 'total: the server’s count');
    await live.loadMore();
    await live.loadMore();
    assert.equal(live.rows.value.length, 300, 'three pages');
    assert.deepEqual(live.rows.value.slice(0, 3).map((row) => row.rank), [0, 1, 2], 'sorted by rank');
    await other(stack.baseUrl, 'POST', '/catalog/big-pages', { name: 'new', rank: 0 });
    await until(() => live.total.value === 5001, () => `total ${live.total.value}`);
    await until(() => live.rows.value.filter((row) => row.rank === 0).length === 2, () => 'the new row in its place');
    assert.equal(live.rows.value.length, 300, 'the window keeps its three pages');
    // the params change: a new list, its window from the first page
    const before = live.list.value;
    params.value = { sort: 'name:desc' };
    await until(() => live.list.value !== before && !live.list.value.status.loading, () => 'the new list read');
    await until(() => live.rows.value.length === 100, () => `one page again: ${live.rows.value.length}`);
    assert.equal(live.rows.value[0].name, 'row 5000', 'in the new order');
    assert.equal(live.window.value, 'can-load-more');
    assert.equal(before.status.why, 'closed', 'the list of before closed');
  } finally {
    scope.stop();
  }
  await until(() => live.list.value.status.why === 'closed', () => 'closed with its scope');
});
