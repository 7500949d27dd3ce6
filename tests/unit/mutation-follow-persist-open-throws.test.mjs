// persist: true where IndexedDB's open() throws (a blocked storage): tests/unit/persist-open-case.mjs.
import { openFailsCase } from './persist-open-case.mjs';

await openFailsCase('throws', () => {
  throw new DOMException('storage is blocked', 'SecurityError');
});
