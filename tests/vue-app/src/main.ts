import { createApp, ref } from 'vue';
import { translateApiError } from '@dynamicforms/fastapi-viewsets';
import App from './App.vue';
import { books, makeItems, peer, resume } from './api';

// The proxy is kept in Vue state (a ref), as an app keeps it in a store: no markRaw.
const items = ref(makeItems());
// writes persisted before a reload go out again (through the proxy just made); the list, mounted
// after, shows them as pending
await resume();
const shown = ref(true);
const errors = ref<string[]>([]);
const app = createApp(App, { items, books, shown, errors });
app.mount('#app');

// What the test drives: writes through the app's proxy, and unmounting the list.
Object.assign(window, {
  app: {
    items: () => items.value,
    books: () => books,
    peer,
    // where the app writes, it handles a failure: the one report of it (the live list rolls back)
    save: <R>(call: Promise<R>): Promise<R | undefined> =>
      call.catch((error: unknown) => {
        errors.value.push(translateApiError(error));
        Object.assign(window, { lastError: error });
        return undefined;
      }),
    hide: () => (shown.value = false),
    show: () => (shown.value = true),
  },
});
