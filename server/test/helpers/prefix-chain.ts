/**
 * What makes a provider's prompt cache pay, checked on the requests a fake provider recorded: each
 * request of an agent starts with the one before it, byte for byte, cache markers aside, and marks
 * a breakpoint in its conversation. A request that breaks its line is reported with the field where
 * it first differs, so a failure says what made the prefix change (a date in the system prompt, a
 * tool description, a message rewritten).
 */
import type { RecordedRequest } from '../../../conformance-tests/src/fake-providers/index.ts';

type Json = Record<string, unknown>;

/** The markers a request places for the cache: no part of the prefix a provider compares. */
const MARKERS = new Set(['cache_control', 'prompt_cache_breakpoint']);

/**
 * The output cap: no part of the prompt, so no part of the prefix (a compaction's summary asks
 * for less; a budget may lower it).
 */
const OUTPUT_CAPS = new Set(['max_tokens', 'max_completion_tokens', 'max_output_tokens']);

/** A request's body without its cache markers. */
export function unmarked(body: unknown): Json {
  return JSON.parse(
    JSON.stringify(body, (key, value: unknown) => (MARKERS.has(key) ? undefined : value)),
  ) as Json;
}

/** The conversation of a request body: `messages`, or the Responses API's `input`. */
export function conversationOf(body: Json): unknown[] {
  return (
    Array.isArray(body.messages) ? body.messages : Array.isArray(body.input) ? body.input : []
  ) as unknown[];
}

/** The system prompt's text, whichever wire API carries it. */
export function systemOf(body: Json): string {
  if (Array.isArray(body.system))
    return (body.system as Json[]).map((block) => String(block.text)).join('\n');
  if (typeof body.instructions === 'string') return body.instructions;
  const first = (body.messages as Json[] | undefined)?.[0];
  if (first === undefined || (first.role !== 'system' && first.role !== 'developer')) return '';
  return typeof first.content === 'string'
    ? first.content
    : (first.content as Json[]).map((part) => String(part.text)).join('');
}

/**
 * The first place where `next` stops extending `previous`: a field of the request (not the
 * conversation) that changed, a message of `previous` that `next` sends otherwise, or a
 * conversation that did not grow. Undefined when `next` extends `previous`.
 */
export function prefixBreak(previous: Json, next: Json): string | undefined {
  const before = unmarked(previous);
  const after = unmarked(next);
  const conversation = Array.isArray(before.messages) ? 'messages' : 'input';
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (key === conversation || OUTPUT_CAPS.has(key)) continue;
    const changed = difference(before[key], after[key], key);
    if (changed !== undefined) return changed;
  }
  const old = conversationOf(before);
  const now = conversationOf(after);
  for (let index = 0; index < old.length; index++) {
    const changed = difference(old[index], now[index], `${conversation}[${index}]`);
    if (changed !== undefined) return changed;
  }
  return now.length > old.length ? undefined : `${conversation}: no message was added`;
}

/** The path of the first difference between `a` and `b`, with both values; undefined if equal. */
function difference(a: unknown, b: unknown, path: string): string | undefined {
  if (
    typeof a === 'object' &&
    a !== null &&
    typeof b === 'object' &&
    b !== null &&
    Array.isArray(a) === Array.isArray(b)
  ) {
    const left = a as Json;
    const right = b as Json;
    const keys = [...new Set([...Object.keys(left), ...Object.keys(right)])];
    // Key order is part of the bytes.
    if (
      JSON.stringify(Object.keys(left)) !== JSON.stringify(Object.keys(right)) &&
      keys.every((k) => k in left && k in right)
    )
      return `${path}: its fields come in another order`;
    for (const key of keys) {
      const changed = difference(
        left[key],
        right[key],
        Array.isArray(a) ? `${path}[${key}]` : `${path}.${key}`,
      );
      if (changed !== undefined) return changed;
    }
    return undefined;
  }
  if (JSON.stringify(a) === JSON.stringify(b)) return undefined;
  if (typeof a === 'string' && typeof b === 'string') {
    let at = 0;
    while (at < a.length && a[at] === b[at]) at++;
    return `${path} differs from character ${at}: ${clip(a, at)} before, ${clip(b, at)} now`;
  }
  return `${path} differs: ${clip(a)} before, ${clip(b)} now`;
}

/** `value` as JSON, around character `at` of a string. */
function clip(value: unknown, at = 0): string {
  if (value === undefined) return 'absent';
  if (typeof value === 'string') {
    const from = Math.max(0, at - 20);
    return `${from > 0 ? '…' : ''}${JSON.stringify(value.slice(from, from + 80))}${from + 80 < value.length ? '…' : ''}`;
  }
  const text = JSON.stringify(value);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

/** A line of requests that should extend each other: an agent's, under one model. */
export interface Line {
  name: string;
  requests: RecordedRequest[];
}

/**
 * Groups requests into lines by `lineOf` and checks each: every request must extend the one before
 * it in its line. Returns one sentence per break, naming the line, the requests and the field.
 */
export function lineBreaks(
  requests: readonly RecordedRequest[],
  lineOf: (request: RecordedRequest) => string,
): string[] {
  const lines = new Map<string, RecordedRequest[]>();
  for (const request of requests) {
    const name = lineOf(request);
    lines.set(name, [...(lines.get(name) ?? []), request]);
  }
  const breaks: string[] = [];
  for (const [name, line] of lines) {
    for (let index = 1; index < line.length; index++) {
      const broken = prefixBreak(line[index - 1]?.body as Json, line[index]?.body as Json);
      if (broken !== undefined)
        breaks.push(`${name}: request ${index + 1} does not start with request ${index}: ${broken}`);
    }
  }
  return breaks;
}

/** How many cache markers a request places, and whether one is in (or at the end of) its conversation. */
export function markers(body: Json): { total: number; inConversation: boolean } {
  let total = 0;
  let inConversation = false;
  const walk = (value: unknown, conversation: boolean): void => {
    if (Array.isArray(value)) for (const item of value) walk(item, conversation);
    else if (typeof value === 'object' && value !== null)
      for (const [key, item] of Object.entries(value)) {
        if (MARKERS.has(key)) {
          total++;
          inConversation ||= conversation;
        } else walk(item, conversation || key === 'messages' || key === 'input');
      }
  };
  walk(body, false);
  // The request-level `cache_control` (Anthropic) marks the conversation's last block.
  if (body.cache_control !== undefined) inConversation = true;
  return { total, inConversation };
}
