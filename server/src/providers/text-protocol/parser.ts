/**
 * Streaming parser for the text tool-call protocol, used with models that have no native tool
 * calling: the tools are described in the system prompt (prompt.ts) and the model writes markup.
 *
 * The markup:
 *   <think>…</think> or <thinking>…</thinking>   reasoning → `thinking` deltas
 *   <status>…</status>                           one present-tense line (≤ 14 words) → `status`
 *   <next>…</next>                               the next action, label first (≤ 100 words) → `next`
 *   <tool_call name="read_file">{"path": "a.ts"}</tool_call>            (name quoted with " or ')
 *   <tool_call>{"name": "read_file", "arguments": {"path": "a.ts"}}</tool_call>   (Hermes/Qwen)
 *   anything else                                answer text → `text` deltas
 *
 * Streaming: text and thinking are emitted as soon as they arrive. The only text held back is a
 * possible partial tag at the end of a chunk (`<thi`), or an opening code fence at a line start
 * until it is known whether it wraps a tool call. A `<` that cannot begin a known tag (`a < b`,
 * `x<y`, `<div>`, stray closing tags such as `</think>`) is answer text, unchanged. Every
 * decision depends only on the characters seen, so any split of the input gives the same events.
 *
 * Whitespace: leading whitespace of the answer, of a thinking block and of the text after any
 * closing tag is dropped, so the newlines around markup do not become answer text.
 *
 * Code fences: a fence line (```xml) directly followed by a `<tool_call` is dropped, and so is
 * the closing ``` line right after the call(s) it wraps. Any other fence is answer text.
 *
 * `</tool_call>` inside a JSON string: the parser tracks double-quoted strings in the call body.
 * A `</tool_call>` outside a string ends the call. One inside a string ends the call only if the
 * body before it already parses as (lenient) JSON, which covers a stray unescaped quote;
 * otherwise it is taken as part of the string, so a model can write a file containing that text.
 *
 * End of stream: an unterminated <tool_call> becomes a `tool_call_error` saying it was cut off
 * (it is never executed); an unterminated <think> has already streamed as thinking; the content
 * of an unterminated <status> or <next> is flushed as answer text, so nothing the model wrote
 * is lost if it forgot the closing tag.
 */
import { parseLenientJson } from './json-repair.ts';
import { cutOffError, interpretToolCall } from './tool-call.ts';

/** One event from the model's text stream; `text` and `thinking` are deltas, the rest complete. */
export type TextProtocolEvent =
  | { type: 'text'; text: string }
  | { type: 'thinking'; text: string }
  | { type: 'status'; text: string }
  | { type: 'next'; text: string }
  | { type: 'tool_call'; id: string; name: string; args: Record<string, unknown>; repaired: boolean }
  /** A call that must not run; `message` is written for the model, to correct and resend it. */
  | { type: 'tool_call_error'; id: string; name?: string; raw: string; message: string };

type Mode = 'text' | 'think' | 'status' | 'next' | 'tool';

interface PendingCall {
  /** Everything after `<tool_call`, so far. */
  inner: string;
  /** Past the `>` of the opening tag, where the JSON body starts. */
  inBody: boolean;
  inString: boolean;
  escaped: boolean;
  /** How many `</tool_call>` inside a string were tried as the end; each try parses the body. */
  checks: number;
  closerInsideString: boolean;
}

const TOOL_CALL = '<tool_call';
const TOOL_OPENERS = ['<tool_call>', '<tool_call ', '<tool_call\n', '<tool_call\t', '<tool_call\r'];
const MARKUP_OPENERS = ['<think>', '<thinking>', '<status>', '<next>'];
const OPENERS = [...MARKUP_OPENERS, ...TOOL_OPENERS];
const CLOSERS = {
  think: ['</think>', '</thinking>'],
  status: ['</status>'],
  next: ['</next>'],
  tool: ['</tool_call>'],
};
/** Bounds the cost of `</tool_call>` inside strings: each check re-parses the body. */
const MAX_CLOSE_CHECKS = 16;
const PARTIAL = Symbol('partial');

/**
 * Incremental parser: feed chunks with `push`, then call `end` once the stream ends. Call ids
 * are `${idPrefix}_${n}`, n counting from 1 per parser; `end` resets the parser for a new
 * stream but the ids keep counting.
 *
 * With `toolCalls: false` (a model that calls tools natively) tool-call markup is answer text
 * like any other: a model quoting a README or a web page that contains `<tool_call …>` must not
 * run a tool. Thinking, status and next tags are still recognised.
 */
export class TextProtocolParser {
  readonly #idPrefix: string;
  readonly #toolCalls: boolean;
  readonly #openers: readonly string[];
  #count = 0;
  #mode: Mode = 'text';
  /** Unconsumed input: a possible partial tag or fence at the end of the last chunk. */
  #held = '';
  #block = '';
  #call: PendingCall | undefined;
  #skipSpace = true;
  #atLineStart = true;
  /** Inside a code fence that was opened right before a tool call. */
  #fenced = false;
  #out: TextProtocolEvent[] = [];

  constructor(options: { idPrefix?: string; toolCalls?: boolean } = {}) {
    this.#idPrefix = options.idPrefix ?? 'call';
    this.#toolCalls = options.toolCalls ?? true;
    this.#openers = this.#toolCalls ? OPENERS : MARKUP_OPENERS;
  }

  /** Feeds a chunk of any size; returns the events it completes, in order. */
  push(chunk: string): TextProtocolEvent[] {
    const input = this.#held + chunk;
    this.#held = '';
    this.#run(input, false);
    return this.#take();
  }

  /** Ends the stream: flushes what is held and reports an unterminated call as cut off. */
  end(): TextProtocolEvent[] {
    const input = this.#held;
    this.#held = '';
    this.#run(input, true);
    const mode = this.#mode;
    switch (mode) {
      case 'text':
      case 'think':
        break;
      case 'status':
      case 'next':
        this.#emit('text', this.#block.trim());
        break;
      case 'tool': {
        const inner = this.#call?.inner ?? '';
        const error = cutOffError(inner, this.#call?.closerInsideString ?? false);
        this.#out.push({ type: 'tool_call_error', id: this.#nextId(), ...error, raw: TOOL_CALL + inner });
        break;
      }
      default: {
        const exhaustive: never = mode;
        throw new Error(`unknown parser mode ${String(exhaustive)}`);
      }
    }
    this.#mode = 'text';
    this.#block = '';
    this.#call = undefined;
    this.#skipSpace = true;
    this.#atLineStart = true;
    this.#fenced = false;
    return this.#take();
  }

  #run(input: string, final: boolean): void {
    let i = 0;
    while (i < input.length) {
      const mode = this.#mode;
      switch (mode) {
        case 'text':
          i = this.#readText(input, i, final);
          break;
        case 'think':
          i = this.#readThinking(input, i, final);
          break;
        case 'status':
        case 'next':
          i = this.#readBlock(input, i, final, mode);
          break;
        case 'tool':
          i = this.#readCall(input, i, final);
          break;
        default: {
          const exhaustive: never = mode;
          throw new Error(`unknown parser mode ${String(exhaustive)}`);
        }
      }
    }
  }

  #readText(input: string, from: number, final: boolean): number {
    let i = this.#skipLeadingSpace(input, from);
    const start = i;
    for (; i < input.length; i++) {
      const c = input[i];
      if (c === '<' || (c === '`' && this.#atLineStart && this.#toolCalls)) break;
      this.#atLineStart = c === '\n';
    }
    this.#emit('text', input.slice(start, i));
    if (i === input.length) return i;
    return input[i] === '<' ? this.#readOpeningTag(input, i, final) : this.#readFence(input, i, final);
  }

  #readOpeningTag(input: string, at: number, final: boolean): number {
    const tag = matchTag(input, at, this.#openers, final);
    if (tag === PARTIAL) return this.#hold(input, at);
    if (tag === undefined) {
      this.#atLineStart = false;
      this.#emit('text', '<');
      return at + 1;
    }
    if (tag.startsWith(TOOL_CALL)) {
      const inner = tag.slice(TOOL_CALL.length);
      this.#mode = 'tool';
      this.#call = {
        inner,
        inBody: inner === '>',
        inString: false,
        escaped: false,
        checks: 0,
        closerInsideString: false,
      };
    } else {
      this.#mode = tag === '<status>' ? 'status' : tag === '<next>' ? 'next' : 'think';
      this.#block = '';
      this.#fenced = false;
      this.#skipSpace = this.#mode === 'think';
    }
    return at + tag.length;
  }

  /** A backtick at a line start: maybe a fence around tool calls, which is dropped. */
  #readFence(input: string, at: number, final: boolean): number {
    if (this.#fenced) {
      const end = matchClosingFence(input, at, final);
      if (end === PARTIAL) return this.#hold(input, at);
      this.#fenced = false;
      if (end !== undefined) {
        this.#afterBlock();
        return end;
      }
    }
    const end = matchOpeningFence(input, at, final);
    if (end === PARTIAL) return this.#hold(input, at);
    if (end !== undefined) {
      this.#fenced = true;
      return end;
    }
    this.#atLineStart = false;
    this.#emit('text', '`');
    return at + 1;
  }

  #readThinking(input: string, from: number, final: boolean): number {
    const start = this.#skipLeadingSpace(input, from);
    const lt = input.indexOf('<', start);
    this.#emit('thinking', input.slice(start, lt === -1 ? input.length : lt));
    if (lt === -1) return input.length;
    const tag = matchTag(input, lt, CLOSERS.think, final);
    if (tag === PARTIAL) return this.#hold(input, lt);
    if (tag === undefined) {
      this.#emit('thinking', '<');
      return lt + 1;
    }
    this.#afterBlock();
    return lt + tag.length;
  }

  #readBlock(input: string, from: number, final: boolean, mode: 'status' | 'next'): number {
    const lt = input.indexOf('<', from);
    this.#block += input.slice(from, lt === -1 ? input.length : lt);
    if (lt === -1) return input.length;
    const tag = matchTag(input, lt, CLOSERS[mode], final);
    if (tag === PARTIAL) return this.#hold(input, lt);
    if (tag === undefined) {
      this.#block += '<';
      return lt + 1;
    }
    const text = this.#block.trim();
    if (text !== '') this.#out.push({ type: mode, text });
    this.#block = '';
    this.#afterBlock();
    return lt + tag.length;
  }

  #readCall(input: string, from: number, final: boolean): number {
    const call = this.#call;
    if (call === undefined) throw new Error('tool mode without a pending call');
    let segment = from;
    for (let i = from; i < input.length; i++) {
      const c = input[i];
      if (c === '<') {
        const tag = matchTag(input, i, CLOSERS.tool, final);
        if (tag === PARTIAL) {
          call.inner += input.slice(segment, i);
          return this.#hold(input, i);
        }
        if (tag !== undefined) {
          call.inner += input.slice(segment, i);
          segment = i;
          if (this.#mayClose(call)) {
            this.#finishCall(call);
            return i + tag.length;
          }
          call.closerInsideString = true;
        }
      }
      if (!call.inBody) {
        call.inBody = c === '>';
      } else if (call.escaped) {
        call.escaped = false;
      } else if (c === '\\') {
        call.escaped = call.inString;
      } else if (c === '"') {
        call.inString = !call.inString;
      }
    }
    call.inner += input.slice(segment);
    return input.length;
  }

  #mayClose(call: PendingCall): boolean {
    if (!call.inString) return true;
    if (call.checks >= MAX_CLOSE_CHECKS) return false;
    call.checks++;
    return parseLenientJson(call.inner.slice(call.inner.indexOf('>') + 1)).ok;
  }

  #finishCall(call: PendingCall): void {
    const id = this.#nextId();
    const outcome = interpretToolCall(call.inner);
    if (outcome.ok) {
      const { name, args, repaired } = outcome;
      this.#out.push({ type: 'tool_call', id, name, args, repaired });
    } else {
      const raw = `${TOOL_CALL}${call.inner}</tool_call>`;
      const { message } = outcome;
      this.#out.push(
        outcome.name === undefined
          ? { type: 'tool_call_error', id, raw, message }
          : { type: 'tool_call_error', id, name: outcome.name, raw, message },
      );
    }
    this.#call = undefined;
    this.#afterBlock();
  }

  #afterBlock(): void {
    this.#mode = 'text';
    this.#skipSpace = true;
    this.#atLineStart = true;
  }

  #skipLeadingSpace(input: string, from: number): number {
    if (!this.#skipSpace) return from;
    let i = from;
    while (i < input.length && /\s/.test(input[i] ?? '')) i++;
    if (i < input.length) this.#skipSpace = false;
    return i;
  }

  #hold(input: string, from: number): number {
    this.#held = input.slice(from);
    return input.length;
  }

  #emit(type: 'text' | 'thinking', text: string): void {
    if (text === '') return;
    if (type === 'text') this.#fenced = false;
    const last = this.#out.at(-1);
    if ((last?.type === 'text' || last?.type === 'thinking') && last.type === type) last.text += text;
    else this.#out.push({ type, text });
  }

  #take(): TextProtocolEvent[] {
    const events = this.#out;
    this.#out = [];
    return events;
  }

  #nextId(): string {
    return `${this.#idPrefix}_${++this.#count}`;
  }
}

/**
 * Which of `tags` starts at `at`: the tag, PARTIAL when the input ends inside a prefix of one
 * (never when `final`), or undefined. Tags are short, so the held prefix is bounded.
 */
function matchTag(input: string, at: number, tags: readonly string[], final: boolean) {
  let partial = false;
  for (const tag of tags) {
    if (input.startsWith(tag, at)) return tag;
    if (!final && input.length - at < tag.length && tag.startsWith(input.slice(at))) partial = true;
  }
  return partial ? PARTIAL : undefined;
}

/** ```lang, spaces, a newline, whitespace, then a tool-call opener: returns where `<` starts. */
function matchOpeningFence(input: string, at: number, final: boolean): number | typeof PARTIAL | undefined {
  const more = final ? undefined : PARTIAL;
  let i = at;
  for (let k = 0; k < 3; i++, k++) {
    if (i === input.length) return more;
    if (input[i] !== '`') return undefined;
  }
  const lang = /[\w+-]{0,20}[ \t]{0,20}\r?\n?/y;
  lang.lastIndex = i;
  i += lang.exec(input)?.[0].length ?? 0;
  if (i === input.length) return more;
  if (input[i - 1] !== '\n') return undefined;
  const space = /\s{0,40}/y;
  space.lastIndex = i;
  i += space.exec(input)?.[0].length ?? 0;
  if (i === input.length) return more;
  const tag = matchTag(input, i, TOOL_OPENERS, final);
  return tag === PARTIAL ? more : tag === undefined ? undefined : i;
}

/** ``` then spaces and a newline (or the end of the stream): returns the index after it. */
function matchClosingFence(input: string, at: number, final: boolean): number | typeof PARTIAL | undefined {
  const fence = /```[ \t]{0,20}(\r?\n)?/y;
  fence.lastIndex = at;
  const match = fence.exec(input);
  if (match === null) {
    return !final && input.length - at < 3 && '```'.startsWith(input.slice(at)) ? PARTIAL : undefined;
  }
  const end = at + match[0].length;
  if (match[1] !== undefined) return end;
  const atEnd = end === input.length || (end + 1 === input.length && input[end] === '\r');
  if (atEnd) return final ? input.length : PARTIAL;
  return undefined;
}
