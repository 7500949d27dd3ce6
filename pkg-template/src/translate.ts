/**
 * Messages of the backend's error codes in the user's language (0.6's `translateApiError`): an
 * English template per code, `{name}` placeholders filled from `detail_params`, and a callback
 * (`translateStrings`) that supplies other languages. Codes are looked up without the backend's
 * `fastapi-viewsets.` namespace, so 0.6 translation tables keyed by bare codes keep working.
 * `http_error` (an application's own `HTTPException`) has no template: its `detail` is the
 * application's message.
 */
import { describe } from './caller.js';
import type { ApiErrorBody } from './errors.js';

/** English templates, keyed by the backend's error code without its namespace. */
const ENGLISH = {
  not_found: 'No record has the primary key {pk}',
  read_only: 'This collection cannot be changed',
  session_expired: 'Your session has expired or is not valid',
  not_authorized: 'You may not do this',
  rate_limited: 'Too many requests: try again later',
  result_timeout: '{task} gave no result within {timeout} s',
  result_reader_stopped: 'The result of the action could not be read',
  action_dispatch_failed: '{task} could not be started',
  action_interrupted: '{task} was interrupted',
  action_failed: 'The action failed',
  idempotency_key_invalid: 'The Idempotency-Key header is not valid',
  idempotency_key_reused: 'The Idempotency-Key {key} was already used for another request',
  unsupported_list_shape: 'The list shape "{shape}" is not offered here; offered: {allowed}',
  event_topic_invalid: 'The topic {topic} is not valid',
  event_topic_refused: 'The topic {topic} is not admitted',
  event_scope_missing: 'The topic {topic} is not open to you',
  event_subscriptions_exceeded: 'At most {limit} topics can be followed at once',
  event_cursors_exceeded: 'At most {limit} cursors can be sent at once, not {count}',
  cursor_unreadable: 'The cursor cannot be read: {error}',
  cursor_missing_position: 'The cursor holds no position',
  cursor_stale: 'The cursor belongs to another sort or filter: start again from the first page',
  cursor_missing_keys: 'The cursor lacks the sort keys {missing}',
  cursor_value_mismatch: 'The cursor value of "{name}" does not fit the field: {error}',
  validation_failed: 'The request is not valid',
  unhandled_error: 'The server failed to handle the request',
  command_invalid: 'The request is not a ViewSet call',
  pk_assigned_by_server: 'The primary key is assigned by the server',
};

/** The codes `translateApiError` has a template for (without the `fastapi-viewsets.` namespace). */
export type TranslatableCode = keyof typeof ENGLISH;

const NAMESPACE = 'fastapi-viewsets.';

/** A `{name}` placeholder of a template. */
const PLACEHOLDER = /\{(\w+)\}/g;

/**
 * What `translateStrings` takes, the callback of 0.6's `@dynamicforms/translatable`: given a code,
 * its English template and its placeholders (each name mapped to its own `{name}`, which an i18n
 * library's interpolating lookup, `t(key, placeholders)`, then keeps in the template), the template
 * in the current language, or null or undefined for the English one.
 */
export type TranslateStringsCallback = (
  code: TranslatableCode,
  defaultValue: string,
  placeholders: Record<string, string>,
) => string | null | undefined;

let translator: TranslateStringsCallback | undefined;

/** The template of `code`: the translator's, else the English one. */
function template(code: TranslatableCode): string {
  const english = ENGLISH[code];
  if (!translator) return english;
  const placeholders: Record<string, string> = {};
  for (const [placeholder, name] of english.matchAll(PLACEHOLDER)) placeholders[name as string] = placeholder;
  return translator(code, english, placeholders) ?? english;
}

/** The template of every code, in the current language (`translateStrings`); read when used. */
export const translatableStrings: { readonly [C in TranslatableCode]: string } = /* @__PURE__ */ (() => {
  const strings = {};
  for (const code of Object.keys(ENGLISH) as TranslatableCode[]) {
    Object.defineProperty(strings, code, { get: () => template(code), enumerable: true });
  }
  return strings as { readonly [C in TranslatableCode]: string };
})();

/**
 * Supplies the templates of another language: `translate(code, defaultValue, placeholders)` returns
 * the template of `code` (`{name}` placeholders allowed), or null or undefined to keep the English
 * one, `defaultValue`. Called whenever a template is read, so a callback that reads the current
 * locale follows it. Replaces the previous one.
 */
export function translateStrings(translate: TranslateStringsCallback): void {
  translator = translate;
}

/**
 * The message of an error answer in the current language. Takes the body (0.6), or the error a
 * call rejected with (`HttpError`, `ViewSetRequestError`, an axios error: its `response.data`).
 * Without a known code, the body's `detail` as the backend wrote it; a body that is text, as is,
 * but a page (markup: a proxy's HTML) given with its error, that error's message (status and
 * reason); an error without an answer, its message.
 */
export function translateApiError(source: ApiErrorBody | unknown): string {
  const response = (source as { response?: { data?: unknown } } | null)?.response;
  const body = (response ? response.data : source) as Partial<ApiErrorBody> | string | null | undefined;
  if (typeof body === 'string') return source instanceof Error && body.trimStart()[0] === '<' ? source.message : body;
  // The body is the server's: anything in it may be of another type, or throw when converted.
  if (body === null || typeof body !== 'object' || typeof body.detail !== 'string') {
    return source instanceof Error ? source.message : describe(body?.detail ?? body);
  }
  let code = typeof body.detail_code === 'string' ? body.detail_code : '';
  if (code.startsWith(NAMESPACE)) code = code.slice(NAMESPACE.length);
  if (!Object.hasOwn(ENGLISH, code)) return body.detail;
  const params: Record<string, unknown> = body.detail_params !== null && typeof body.detail_params === 'object' ? body.detail_params : {};
  return template(code as TranslatableCode).replace(PLACEHOLDER, (placeholder, name: string) => {
    const value = Object.hasOwn(params, name) ? params[name] : undefined;
    return value === undefined ? placeholder : Array.isArray(value) ? value.map(describe).join(', ') : describe(value);
  });
}
