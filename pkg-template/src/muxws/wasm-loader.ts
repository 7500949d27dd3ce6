/**
 * Compiles the package's muxws module (the calls module comes inside the package's JS, see
 * calls.ts): streaming from its URL in browsers and bundlers (the bytes are compiled as they
 * arrive), from the file's bytes in Node, whose `fetch` cannot load a `file:` URL. Its driver
 * instantiates it.
 */
export async function compileWasm(url: URL): Promise<WebAssembly.Module> {
  if (url.protocol === 'file:') {
    // Node (20.16 and later): its built-in fs, reached without an import a browser bundler would follow.
    const node = (globalThis as { process?: { getBuiltinModule?(name: string): unknown } }).process;
    const fs = node?.getBuiltinModule?.('node:fs') as { readFileSync(url: URL): BufferSource } | undefined;
    if (!fs) throw new Error('the package needs Node 20.16 or later');
    return WebAssembly.compile(fs.readFileSync(url));
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
