// The demo page's state, and the helpers every panel reads it through.
import { HttpError } from '@dynamicforms/fastapi-viewsets';

import type { Item, ItemsApi, MuxwsPeer } from './api';
import type { Backend, DemoConfig } from './backend';
import { byId } from './dom';

// ------------------------------------------------------------------ actions the page tracks
/** The backend's counter names, with how the page shows them. */
export const ACTIONS = [
  { id: 'list', label: 'List', route: 'GET /items' },
  { id: 'create', label: 'Create', route: 'POST /items' },
  { id: 'partial_update', label: 'Rename', route: 'PATCH /items/{id}' },
  { id: 'destroy', label: 'Delete', route: 'DELETE /items/{id}' },
  { id: 'slow', label: 'Slow action', route: 'POST /items/slow' },
] as const;
export type ActionId = (typeof ACTIONS)[number]['id'];

/** The counter an activity event's call moves on the backend, if the page tracks it. */
export function actionOf(method: string, path: string): ActionId | null {
  if (path === '/items/slow' && method === 'POST') return 'slow';
  if (path === '/items') return method === 'GET' ? 'list' : method === 'POST' ? 'create' : null;
  if (/^\/items\/[^/]+$/.test(path) && path !== '/items/schema') {
    if (method === 'PATCH') return 'partial_update';
    if (method === 'DELETE') return 'destroy';
  }
  return null;
}

/** How an attempt ended, in words a visitor understands. */
// ------------------------------------------------------------------ state
export interface CallInfo {
  action: ActionId | null;
  attempts: number;
  lastEnded?: string;
}

export const state = {
  config: null as DemoConfig | null,
  backend: null as Backend | null,
  api: null as ItemsApi | null,
  transport: 'rest' as 'rest' | 'muxws',
  peer: null as MuxwsPeer | null,
  items: [] as Item[],
  editing: null as number | null,
  busyRows: new Set<number>(),
  calls: new Map<string, CallInfo>(),
  baseline: null as Record<string, number> | null,
  counters: {} as Record<string, number>,
  shownRuns: new Map<string, number>(),
};

export function api(): ItemsApi {
  if (!state.api) throw new Error('not connected');
  return state.api;
}

export function backend(): Backend {
  if (!state.backend) throw new Error('not configured');
  return state.backend;
}

export function errorText(error: unknown): string {
  if (error instanceof HttpError) {
    const detail = typeof error.detail === 'string' ? error.detail : JSON.stringify(error.detail ?? error.body);
    return `${error.status}: ${detail}`;
  }
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

/** Shows `message` above the items (null: hides it). */
export function showError(message: string | null): void {
  const box = byId('items-error');
  box.hidden = message === null;
  box.textContent = message ?? '';
}
