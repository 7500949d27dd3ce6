// 0.6 code that hands the proxies its own axios instance (option `axiosInstance`, or the fourth
// argument of route_rest) and handles axios' errors. Needs `axios` installed (a dev dependency of
// the 0.7 tests, an optional peer of the package). Compiled with compat-0.6.ts.
import axios, { type AxiosInstance } from 'axios';

import {
  BulkViewSetMixin,
  LookupMixin,
  restViewSet,
  route_rest,
  ViewSetMixin,
  ViewSetRequestError,
  type ApiErrorBody,
} from '@dynamicforms/fastapi-viewsets';

interface Book {
  id: number;
  title: string;
  author: string;
  year?: number | null;
}

const http: AxiosInstance = axios.create({ baseURL: 'http://127.0.0.1:8101', headers: { Authorization: 'Bearer t' } });
http.interceptors.request.use((config) => {
  config.headers.set('X-Trace', 'compat');
  return config;
});

class BookViewSet extends BulkViewSetMixin<number, Book, 'id'> {}

const positional = route_rest<BulkViewSetMixin<number, Book, 'id'> & LookupMixin>(BookViewSet, '/catalog/bulk', 'id', http);
const withOptions = route_rest<ViewSetMixin<number, Book, 'id'>>(BookViewSet, {
  basePath: '/catalog/books',
  pkFieldName: 'id',
  axiosInstance: http,
});

class BookApi extends restViewSet<Book>()('id', [ViewSetMixin]) {}
const api = new BookApi({ basePath: '/catalog/books', axiosInstance: http, validateSchema: false });

export async function overAxios(): Promise<number> {
  await positional.bulkDestroy([1, 2]);
  await withOptions.list({ sort: 'title', year__in: [1815, 1817] });
  try {
    await api.retrieve(99);
  } catch (error) {
    if (axios.isAxiosError(error) && error.response?.status === 404) {
      const body = error.response.data as ApiErrorBody;
      return body.detail.length;
    }
    if (error instanceof ViewSetRequestError) return error.response.status;
    throw error;
  }
  return 200;
}
