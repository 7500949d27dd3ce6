// The Vue page of the demo (vue.html): the composables of @dynamicforms/fastapi-viewsets/vue over
// the demo's backend. `?transport=muxws` follows and writes over a muxws peer; REST otherwise.
import { createApp, ref } from 'vue';

import { loadConfig } from '../backend';
import { muxwsItems, restItems, type ItemsApi } from '../api';
import App from './App.vue';

const config = await loadConfig();
const transport = new URLSearchParams(location.search).get('transport') === 'muxws' ? 'muxws' : 'rest';
const api: ItemsApi = transport === 'muxws' ? (await muxwsItems(config.wsUrl, {})).api : restItems(config.baseUrl);
// the proxy in Vue state as an app keeps it (no markRaw: it marks itself)
createApp(App, { items: ref(api), config, transport }).mount('#vue-app');
