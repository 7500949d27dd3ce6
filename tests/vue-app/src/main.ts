import { createApp, ref } from 'vue';
import App from './App.vue';
import { books, makeItems, peer, resume } from './api';

// The proxy is kept in Vue state (a ref), as an app keeps it in a store: no markRaw.
const items = ref(makeItems());
// writes persisted before a reload go out again (through the proxy just made); the list, mounted
// after, shows them as pending
await resume();
const shown = ref(true);
const app = createApp(App, { items, books, shown });
app.mount('#app');

// What the test drives: writes through the app's proxy, and unmounting the list.
Object.assign(window, {
  app: {
    items: () => items.value,
    peer,
    hide: () => (shown.value = false),
    show: () => (shown.value = true),
  },
});
