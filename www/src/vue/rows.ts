// The demo's page of a long list (rows.html): the 5 000 rows of the backend's paginated ViewSet
// (/catalog/big-pages), scrolled with an IntersectionObserver and kept live by useLiveList.
// `?transport=muxws` reads and follows over a muxws peer; REST (polling) otherwise.
import { createApp, ref } from 'vue';
import * as pkg from '@dynamicforms/fastapi-viewsets';

import { loadConfig } from '../backend';
import { muxwsBigRows, restBigRows, type BigRowsApi } from './big-rows';
import BigRows from './BigRows.vue';

const config = await loadConfig();
const transport = new URLSearchParams(location.search).get('transport') === 'muxws' ? 'muxws' : 'rest';
const rows: BigRowsApi = transport === 'muxws' ? muxwsBigRows(await pkg.connectMuxws(config.wsUrl, {})) : restBigRows(config.baseUrl);
createApp(BigRows, { rows: ref(rows), transport }).mount('#rows-app');
