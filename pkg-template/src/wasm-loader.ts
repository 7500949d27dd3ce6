/**
 * Compiles a wasm module of the package: streaming from its URL in browsers and bundlers (the
 * bytes are compiled as they arrive), from the file's bytes in Node, whose `fetch` cannot load a
 * `file:` URL. The module is then instantiated with the glue's `initSync`, which keeps the glue's
 * own fetching code out of an app's bundle.
 */
export async function compileWasm(url: URL): Promise<WebAssembly.Module> {
  if (url.protocol === 'file:') {
    const fsModule = 'node:fs/promises'; // a variable keeps bundlers from resolving it for browsers
    const fs = (await import(/* @vite-ignore */ fsModule)) as { readFile(url: URL): Promise<BufferSource> };
    return WebAssembly.compile(await fs.readFile(url));
  }
  if (typeof WebAssembly.compileStreaming === 'function') {
    try {
      return await WebAssembly.compileStreaming(fetch(url));
    } catch (error) {
      // A server that does not send `application/wasm`: fetch the bytes and compile them instead.
      if (!(error instanceof TypeError)) throw error;
    }
  }
  const answer = await fetch(url);
  if (!answer.ok) throw new Error(`the package's wasm module could not be loaded: ${answer.status} ${url.href}`);
  return WebAssembly.compile(await answer.arrayBuffer());
}
