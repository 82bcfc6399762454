/**
 * Turns the inside of one complete `<tool_call …>…</tool_call>` into a tool name and arguments,
 * or into an error message addressed to the model. Two forms are accepted:
 *   `<tool_call name="read_file">{"path": "a.ts"}</tool_call>` (name as an attribute), and
 *   `<tool_call>{"name": "read_file", "arguments": {"path": "a.ts"}}</tool_call>` (Hermes/Qwen),
 * where "parameters" or "args" may stand for "arguments", the arguments may be a JSON string,
 * and the OpenAI shape `{"type": "function", "function": {"name": …, "arguments": "…"}}` is read too.
 */
import { parseLenientJson } from './json-repair.ts';

export type ToolCallOutcome =
  | { ok: true; name: string; args: Record<string, unknown>; repaired: boolean }
  | { ok: false; name?: string; message: string };

const ARGUMENT_KEYS = ['arguments', 'parameters', 'args'];
const ATTRIBUTE = /([A-Za-z_][\w-]*)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/g;

/**
 * Interprets `inner`, the text between `<tool_call` and `</tool_call>` (so it starts with the
 * rest of the opening tag: `>` or whitespace and attributes).
 */
export function interpretToolCall(inner: string): ToolCallOutcome {
  const gt = inner.indexOf('>');
  if (gt === -1) {
    return failure(undefined, `its opening tag was not closed with ">". Write ${form('TOOL_NAME')}.`);
  }
  const name = attribute(inner.slice(0, gt), 'name')?.trim();
  const body = inner.slice(gt + 1).trim();
  return name ? withNameAttribute(name, body) : withNameInBody(body);
}

/** The error for a call the stream ended inside of; such a call must never run. */
export function cutOffError(inner: string, closerInsideString: boolean): { name?: string; message: string } {
  const gt = inner.indexOf('>');
  const name = (gt === -1 ? undefined : attribute(inner.slice(0, gt), 'name')) ?? guessName(inner);
  const hint = closerInsideString
    ? ' A </tool_call> inside a quoted JSON string is read as part of that string: escape every quote' +
      ' inside a string as \\", and if an argument must contain the text </tool_call>, write it as <\\/tool_call>.'
    : '';
  const { ok: _failed, ...error } = failure(
    name,
    'your reply ended before its closing </tool_call> tag, so it was cut off. ' +
      `Send the complete call again, ending with </tool_call>.${hint}`,
  );
  return error;
}

function withNameAttribute(name: string, body: string): ToolCallOutcome {
  if (body === '') return { ok: true, name, args: {}, repaired: false };
  const parsed = parseLenientJson(body);
  if (!parsed.ok) {
    return failure(name, `its arguments are not valid JSON: ${parsed.message} Write ${form(name)}.`);
  }
  const value = parsed.value;
  // Models trained on the Hermes form sometimes repeat it inside the attribute form.
  if (
    isObject(value) &&
    value.name === name &&
    Object.keys(value).some((key) => ARGUMENT_KEYS.includes(key)) &&
    Object.keys(value).every((key) => key === 'name' || ARGUMENT_KEYS.includes(key))
  ) {
    return fromArgumentsField(name, value, parsed.repaired);
  }
  return asArguments(name, value, parsed.repaired);
}

function withNameInBody(body: string): ToolCallOutcome {
  if (body === '') return failure(undefined, `it is empty: it names no tool. Write ${form('TOOL_NAME')}.`);
  const parsed = parseLenientJson(body);
  if (!parsed.ok) {
    return failure(
      guessName(body),
      `its content is not valid JSON: ${parsed.message} Write ${form('TOOL_NAME')}.`,
    );
  }
  let value = parsed.value;
  if (isObject(value) && isObject(value.function)) value = value.function;
  const name = isObject(value) && typeof value.name === 'string' ? value.name.trim() : '';
  if (!isObject(value) || name === '') {
    return failure(
      undefined,
      'it names no tool. Put the tool name in the tag, ' +
        `${form('TOOL_NAME')}, or write <tool_call>{"name": "TOOL_NAME", "arguments": {…}}</tool_call>.`,
    );
  }
  return fromArgumentsField(name, value, parsed.repaired);
}

function fromArgumentsField(name: string, call: Record<string, unknown>, repaired: boolean): ToolCallOutcome {
  const key = ARGUMENT_KEYS.find((candidate) => call[candidate] !== undefined && call[candidate] !== null);
  const value = key === undefined ? {} : call[key];
  if (typeof value !== 'string') return asArguments(name, value, repaired);
  if (value.trim() === '') return { ok: true, name, args: {}, repaired };
  const parsed = parseLenientJson(value);
  if (!parsed.ok) {
    return failure(name, `its "${key}" string is not valid JSON: ${parsed.message} Write ${form(name)}.`);
  }
  return asArguments(name, parsed.value, repaired || parsed.repaired);
}

function asArguments(name: string, value: unknown, repaired: boolean): ToolCallOutcome {
  if (isObject(value)) return { ok: true, name, args: value, repaired };
  const kind = Array.isArray(value) ? 'an array' : value === null ? 'null' : `a ${typeof value}`;
  return failure(name, `its arguments must be a JSON object, not ${kind}. Write ${form(name)}.`);
}

function failure(name: string | undefined, reason: string): { ok: false; name?: string; message: string } {
  const message = `The tool call${name === undefined ? '' : ` to ${name}`} was not run: ${reason}`;
  return name === undefined ? { ok: false, message } : { ok: false, name, message };
}

function form(name: string): string {
  return `<tool_call name="${name}">{"argument": "value"}</tool_call> with the arguments as one JSON object`;
}

function attribute(attributes: string, key: string): string | undefined {
  for (const match of attributes.matchAll(ATTRIBUTE)) {
    if (match[1] === key) return match[2] ?? match[3] ?? match[4];
  }
  return undefined;
}

/** Best effort, for error reports only: the "name" of a Hermes-style body that did not parse. */
function guessName(text: string): string | undefined {
  return /"name"\s*:\s*"([^"\n]{1,100})"/.exec(text)?.[1];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
