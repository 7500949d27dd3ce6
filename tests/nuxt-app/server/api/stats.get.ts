// What the server process holds of the package and of timers (the suite reads it after many renders).
import { internalStats } from '@dynamicforms/fastapi-viewsets';

export default defineEventHandler(() => ({
  stats: internalStats(),
  timers: process.getActiveResourcesInfo().filter((name) => name === 'Timeout').length,
}));
