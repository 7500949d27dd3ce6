// Vite configuration of the demo page. `www/serve.mjs` builds with it (Vite's JS API) into www/dist;
// the page reads the backend's URLs from the /config.json that serve.mjs serves next to it.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root: here,
  base: './',
  resolve: {
    alias: {
      // The package as an application installs it: the ESM entry of the build output in ../pkg.
      '@dynamicforms/fastapi-viewsets': fileURLToPath(new URL('../pkg/index.js', import.meta.url)),
    },
  },
  // The package instantiates its WebAssembly module with top-level await.
  build: {
    target: 'es2022',
    outDir: 'dist',
    emptyOutDir: true,
    assetsInlineLimit: 0,
    reportCompressedSize: false,
  },
  optimizeDeps: { exclude: ['@dynamicforms/fastapi-viewsets'] },
  server: { fs: { allow: ['..'] } },
});
