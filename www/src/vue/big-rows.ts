// The demo's long list: the backend's paginated ViewSet of 5 000 rows (tests/backend/big.py,
// /catalog/big-pages: `{id, name, rank}`, 100 a page), over REST or over a muxws peer.
import {
  CreateMixin,
  DestroyMixin,
  muxwsViewSet,
  PaginatedListMixin,
  restViewSet,
  RetrieveMixin,
  UpdateMixin,
  type MuxwsPeer,
} from '@dynamicforms/fastapi-viewsets';

/** A row of the long list. */
export interface BigRow {
  id: number;
  name: string;
  rank: number;
}

/** Where the long list lives on the backend. */
export const BIG_ROWS_PATH = '/catalog/big-pages';

class RestBigRows extends restViewSet<BigRow>()('id', [PaginatedListMixin, CreateMixin, RetrieveMixin, UpdateMixin, DestroyMixin]) {}
class MuxwsBigRows extends muxwsViewSet<BigRow>()('id', [PaginatedListMixin, CreateMixin, RetrieveMixin, UpdateMixin, DestroyMixin]) {}

/** The long list's proxy, whatever the transport: pages (listPage), and the writes a row offers. */
export type BigRowsApi = RestBigRows | MuxwsBigRows;

/** The long list over REST. */
export function restBigRows(baseUrl: string): BigRowsApi {
  return new RestBigRows({ basePath: BIG_ROWS_PATH, baseUrl });
}

/** The long list over a muxws peer. */
export function muxwsBigRows(peer: MuxwsPeer): BigRowsApi {
  return new MuxwsBigRows({ basePath: BIG_ROWS_PATH, peer });
}
