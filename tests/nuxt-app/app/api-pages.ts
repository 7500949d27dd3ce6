// A module-level proxy of a paginated ViewSet of 5 000 rows (the test backend's /catalog/big-pages,
// 100 a page), apart from the other proxies so that their pages do not import it.
import { PaginatedListMixin, restViewSet } from '@dynamicforms/fastapi-viewsets';
import { baseUrl } from './api';

/** A row of the big lists: `row 0001` … `row 5000` in id order. */
export interface Row { id: number; name: string; rank: number }

export const bigPages = new (restViewSet<Row>()('id', [PaginatedListMixin]))({ basePath: '/catalog/big-pages', baseUrl });
