// persist: true where IndexedDB's open() fails (its request's onerror): tests/unit/persist-open-case.mjs.
import { openFailsCase } from './persist-open-case.mjs';

await openFailsCase('fails', () => {
  const req = { result: undefined, error: new DOMException('no quota', 'QuotaExceededError'), onsuccess: null, onerror: null, onupgradeneeded: null };
  queueMicrotask(() => req.onerror?.());
  return req;
});
