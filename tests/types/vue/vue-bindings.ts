// The Vue subpath's types (@dynamicforms/fastapi-viewsets/vue): a proxy kept in ref() or reactive()
// (a Pinia store's state) keeps its own type, with no markRaw; useLiveList's rows are a readonly
// array of the proxy's record type, or a pending create's row, without its primary key;
// useCallActivity and useFollow as the README shows them.
import { reactive, ref } from 'vue';
import { restViewSet, ViewSetMixin, type LiveRow, type PendingWrite } from '@dynamicforms/fastapi-viewsets';
import { useCallActivity, useFollow, useLiveList, type LiveRowOf } from '@dynamicforms/fastapi-viewsets/vue';

interface Item {
  id: number;
  name: string;
}

class Items extends restViewSet<Item>()('id', [ViewSetMixin]) {}

function takesItems(items: Items): string {
  return items.basePath;
}

export function bindings(): unknown[] {
  const items = ref(new Items({ basePath: '/items' }));
  const store = reactive({ items: new Items({ basePath: '/items' }) });
  // the proxy out of Vue state is still an Items (TS2345 before: "Property 'request' is missing")
  takesItems(items.value);
  takesItems(store.items);
  const { rows, status, pending, pendingOf, refresh } = useLiveList(items, () => ({ sort: 'name' }));
  const first: LiveRow<Item, 'id'> | undefined = rows.value[0];
  const same: LiveRowOf<Items> | undefined = first;
  // @ts-expect-error a pending create's row has no id yet
  const record: Item | undefined = rows.value[0];
  const id: number | undefined = rows.value[0]?.id;
  const name: string | undefined = rows.value[0]?.name;
  // @ts-expect-error rows are read-only
  rows.value[0] = { id: 1, name: 'x' };
  const write: PendingWrite<LiveRow<Item, 'id'>> | undefined = first && pendingOf(first);
  const stale: boolean = status.value.stale;
  const { pendingCount, secondsToNextAttempt, offline, retryNow, repeating } = useCallActivity();
  const count: number = pendingCount.value;
  const seconds: number | null = secondsToNextAttempt.value;
  const { mode, last } = useFollow<{ rows: number }>('imports:7', { baseUrl: 'https://api.example.com' });
  const rowsImported: number | undefined = last.value?.payload.rows;
  retryNow();
  return [same, record, id, name, write, stale, pending.value.length, refresh(), count, seconds, offline.value, repeating.value, mode.value, rowsImported];
}
