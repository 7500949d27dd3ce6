// Vite configuration of the demo pages (index.html; vue.html: the Vue composables; rows.html: 5 000
// rows scrolled and kept live).
// `www/serve.mjs` builds with it (Vite's JS API) into www/dist; the pages read the backend's URLs
// from the /config.json that serve.mjs serves next to them.
import { fileURLToPath } from 'node:url';
import vue from '@vitejs/plugin-vue';
import { defineConfig } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));
const pkg = (file: string) => fileURLToPath(new URL(`../pkg/${file}`, import.meta.url));

export default defineConfig({
  root: here,
  base: './',
  plugins: [vue()],
  resolve: {
    // The package as an application installs it: the ESM entries of the build output in ../pkg.
    alias: [
      { find: /^@dynamicforms\/fastapi-viewsets\/vue$/, replacement: pkg('vue/index.js') },
      { find: /^@dynamicforms\/fastapi-viewsets$/, replacement: pkg('index.js') },
    ],
  },
  // The package instantiates its WebAssembly module with top-level await.
  build: {
    target: 'es2022',
    outDir: 'dist',
    emptyOutDir: true,
    assetsInlineLimit: 0,
    reportCompressedSize: false,
    rollupOptions: { input: { index: fileURLToPath(new URL('./index.html', import.meta.url)), vue: fileURLToPath(new URL('./vue.html', import.meta.url)), rows: fileURLToPath(new URL('./rows.html', import.meta.url)) } },
  },
  optimizeDeps: { exclude: ['@dynamicforms/fastapi-viewsets'] },
  server: { fs: { allow: ['..'] } },
});
