// The test app's Nuxt config: the package's Nuxt module and nothing else of it. The backend's URL is
// fixed at build time (the suite starts the backend, then builds the app once per run).
export default defineNuxtConfig({
  modules: ['@dynamicforms/fastapi-viewsets/nuxt'],
  compatibilityDate: '2026-01-01',
  telemetry: false,
  devtools: { enabled: false },
  vite: { define: { __VUE_PROD_HYDRATION_MISMATCH_DETAILS__: 'true', __BACKEND__: JSON.stringify(process.env.BACKEND_URL ?? 'http://127.0.0.1:9'), __BACKEND_WS__: JSON.stringify(process.env.BACKEND_WS_URL ?? 'ws://127.0.0.1:9/ws') } },
});
