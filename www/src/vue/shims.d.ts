// Single file components, to TypeScript (tsc checks the .ts files; Vite compiles the .vue ones).
declare module '*.vue' {
  import type { DefineComponent } from 'vue';
  const component: DefineComponent;
  export default component;
}
