// The demo backend's test controls: the fault proxy in front of it (`/__fault`, answered by the proxy)
// and the app's counters (`/__test/*`). Plain fetch: these calls are not ViewSet calls and do not show
// up in the call activity.

/** What the demo server serves at /config.json. */
export interface DemoConfig {
  /** The backend's origin, through the fault proxy. */
  baseUrl: string;
  /** The muxws endpoint, through the fault proxy. */
  wsUrl: string;
}

/** A fault queued on the proxy, as its listing describes it. */
export interface QueuedFault {
  id: number;
  mode: string;
  remaining: number;
  used: number;
  method: string | null;
  path: string;
}

/** A fault that hit a request. */
export interface FiredFault extends QueuedFault {
  request: string;
  t: number;
}

export interface FaultListing {
  faults: QueuedFault[];
  fired: FiredFault[];
  ws_tunnels: unknown[];
}

/** Which calls a fault hits. */
export interface FaultTarget {
  path: string;
  method?: string;
}

export const FAULT_TARGETS: Record<string, FaultTarget> = {
  slow: { path: '/items/slow', method: 'POST' },
  items: { path: '/items' },
  events: { path: '/events/poll', method: 'POST' },
};

export async function loadConfig(): Promise<DemoConfig> {
  const response = await fetch('./config.json', { cache: 'no-store' });
  if (!response.ok) throw new Error(`config.json: ${response.status}`);
  const config = (await response.json()) as Partial<DemoConfig>;
  if (typeof config.baseUrl !== 'string' || typeof config.wsUrl !== 'string') throw new Error('config.json lacks baseUrl or wsUrl');
  return { baseUrl: config.baseUrl.replace(/\/+$/, ''), wsUrl: config.wsUrl };
}

async function json<T>(url: string, init?: RequestInit): Promise<T> {
  const response = await fetch(url, { cache: 'no-store', ...init });
  const text = await response.text();
  if (!response.ok) throw new Error(`${init?.method ?? 'GET'} ${new URL(url).pathname}: ${response.status} ${text.slice(0, 200)}`);
  return (text ? JSON.parse(text) : null) as T;
}

export class Backend {
  constructor(readonly config: DemoConfig) {}

  private control<T>(params: Record<string, string | number | undefined>): Promise<T> {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(params)) if (value !== undefined) search.set(name, String(value));
    return json<T>(`${this.config.baseUrl}/__fault?${search}`);
  }

  /** Queues `mode` for the next `count` calls matching `target`. */
  queueFault(mode: string, target: FaultTarget, count = 1): Promise<unknown> {
    return this.control({ mode, count, path: target.path, method: target.method });
  }

  /** Cuts every WebSocket tunnel of the proxy now. */
  killWebSockets(): Promise<{ killed: number }> {
    return this.control({ mode: 'kill_ws' });
  }

  clearFaults(): Promise<unknown> {
    return this.control({ mode: 'clear' });
  }

  faults(): Promise<FaultListing> {
    return this.control({});
  }

  /** How many times the backend ran each action (`list`, `create`, `partial_update`, `destroy`, `slow`, …). */
  counters(): Promise<Record<string, number>> {
    return json(`${this.config.baseUrl}/__test/counters`);
  }

  /** Clears the backend's items, counters and request log. */
  async reset(): Promise<void> {
    await json(`${this.config.baseUrl}/__test/reset`, { method: 'POST' });
    await this.clearFaults();
  }
}
