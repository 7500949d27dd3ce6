// The two-argument mixin types the issue names (`BulkViewSetMixin<number, Item>`), as 0.6's docs
// comments wrote them. 0.6 itself never compiled them: its `PK extends keyof T` parameter has no
// default (TS2314, "requires 3 type argument(s)"). 0.7 gives PK the default
// `Extract<'id', keyof T>`, so that code written from those comments works too. Compiled with
// compat-0.6.ts (`tsc -p tests/types/compat`).
import {
  BulkViewSetMixin,
  LookupMixin,
  route_rest,
  ViewSetMixin,
  type LookupItem,
} from '@dynamicforms/fastapi-viewsets';

interface Item {
  id: number;
  name: string;
}

class ItemViewSet extends BulkViewSetMixin<number, Item> implements LookupMixin {
  declare lookup: () => Promise<LookupItem[]>;
}

const items = route_rest<BulkViewSetMixin<number, Item> & LookupMixin>(ItemViewSet, '/catalog/bulk', 'id');
const crud = route_rest<ViewSetMixin<number, Item>>(ItemViewSet, { basePath: '/items', pkFieldName: 'id' });

export async function twoArgs(): Promise<void> {
  // with the default PK 'id', create still leaves the pk out
  const made: Item = await items.create({ name: 'x' });
  // @ts-expect-error ... and still requires the rest of the record
  await items.create({});
  const listed: Item[] = await crud.list({ sort: 'name' });
  const choices: LookupItem[] = await items.lookup();
  await items.bulkDestroy([made.id]);
  void [listed, choices];
}
