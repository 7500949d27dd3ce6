// Type-checked by the test (tsc --strict against the installed package), never bundled: what the
// app's types say of a live list's rows. A pending create's row has no primary key until the server
// answers it, so a row is not typed as the record.
import { liveList, restViewSet, ViewSetMixin, type LiveRow } from '@dynamicforms/fastapi-viewsets';
import { useLiveList } from '@dynamicforms/fastapi-viewsets/vue';

interface Item {
  id: number;
  name: string;
}
class Items extends restViewSet<Item>()('id', [ViewSetMixin]) {}
declare const items: Items;

const list = liveList(items);
// @ts-expect-error a row may be a pending create's, without its id
export const id: number = list.rows[0].id;
export const maybe: number | undefined = list.rows[0]?.id;
export const name: string | undefined = list.rows[0]?.name;
export const row: LiveRow<Item, 'id'> | undefined = list.rows[0];
export const pendingCreate: number | undefined = list.pendingOf(list.rows[0])?.row?.id;

export function inSetup(): void {
  const { rows, pendingOf } = useLiveList(items);
  // @ts-expect-error the same through the composable
  const first: Item = rows.value[0];
  const key: number | string | undefined = rows.value[0]?.id ?? pendingOf(rows.value[0])?.key;
  void [first, key];
}
