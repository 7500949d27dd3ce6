// The built package (pkg/) under its npm name, for the Node tests whose code imports it as an app does
// (the Vue subpath imports '@dynamicforms/fastapi-viewsets'): a resolve hook maps the name to
// pkg/index.js, so the subpaths and the test share one instance of the package. Import this module
// before anything that imports the package by its name.
import { register } from 'node:module';

/** pkg/index.js as a URL. */
export const pkgUrl = new URL('../../pkg/index.js', import.meta.url).href;
register(
  `data:text/javascript,${encodeURIComponent(`export async function resolve(specifier, context, next) {
  return specifier === '@dynamicforms/fastapi-viewsets' ? { url: ${JSON.stringify(pkgUrl)}, shortCircuit: true } : next(specifier, context);
}`)}`,
);

/** The package's main entry, the instance every subpath imports. */
export const pkg = await import(pkgUrl);
