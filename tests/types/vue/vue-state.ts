// Objects of the package held in Vue state, as Vue apps hold them (a Pinia store's ref, reactive
// state): Vue's types copy a class instance's public members, so a public member typed with a class
// that has private fields would make the copy no longer a MuxwsPeer or MuxwsStream. Checked with
// @vue/reactivity, the package Vue's ref() and reactive() come from.
import { reactive, ref } from '@vue/reactivity';
import {
  connectMuxws,
  muxwsViewSet,
  route_muxws,
  ViewSetMixin,
  ListMixin,
  type MuxwsPeer,
  type MuxwsStream,
} from '@dynamicforms/fastapi-viewsets';

interface Row {
  id: number;
  name: string;
}

class Rows extends muxwsViewSet<Row>()('id', [ViewSetMixin]) {}
class RowViewSet extends ListMixin<Row> {}

export async function vueState(): Promise<string[]> {
  const peer = ref<MuxwsPeer | null>(null);
  peer.value = await connectMuxws('/ws');
  const state = reactive({ peer: null as MuxwsPeer | null, stream: null as MuxwsStream<Row> | null });
  state.peer = peer.value;
  const fromRef = new Rows({ basePath: '/rows', peer: peer.value });
  const fromState = new Rows({ basePath: '/rows', peer: state.peer });
  const routed = route_muxws<ListMixin<Row>>(RowViewSet, { basePath: '/rows', pkFieldName: 'id', peer: state.peer });
  state.stream = state.peer.open<Row>({ id: 1 });
  const stream: MuxwsStream<Row> = state.stream;
  const held: MuxwsPeer = state.peer;
  return [fromRef.list().key, fromState.list().key, String(stream.id), String(held.isOpen), String((await routed.list()).length)];
}
