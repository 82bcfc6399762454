/**
 * What a person sees while a model writes a large tool call (a 100 KB write_file): one status line
 * that grows — "write_file notes.md: receiving 42 KB" — instead of a spinner that says nothing
 * for a minute. A status with a key (§7.2), so clients show it in place; small calls say nothing.
 */
import type { AgentEvent } from './events.ts';

/** Arguments shorter than this arrive too fast to need a line. */
const QUIET_CHARS = 4 * 1024;
/** A new line once this much more has arrived. */
const STEP_CHARS = 8 * 1024;
/** The key of the line, shared by the calls of one agent turn. */
export const TOOL_INPUT_KEY = 'tool-input';

interface Call {
  name: string;
  chars: number;
  reported: number;
  /** The start of the arguments, read for a path until it is found or long enough. */
  head: string;
  path: string | undefined;
}

export class ToolInputProgress {
  readonly #calls = new Map<string, Call>();
  readonly #emit: (event: AgentEvent) => void;

  constructor(emit: (event: AgentEvent) => void) {
    this.#emit = emit;
  }

  /** A piece of a call's arguments arrived. Calls are keyed by the provider's id, or its name. */
  add(id: string, name: string, piece: string): void {
    const key = id === '' ? name : id;
    let call = this.#calls.get(key);
    if (call === undefined) {
      call = { name, chars: 0, reported: 0, head: '', path: undefined };
      this.#calls.set(key, call);
    }
    if (name !== '') call.name = name;
    call.chars += piece.length;
    if (call.path === undefined && call.head.length < 2048) {
      call.head += piece.slice(0, 2048 - call.head.length);
      call.path = /"(?:path|file|to)"\s*:\s*"([^"\\]{1,200})"/.exec(call.head)?.[1];
    }
    if (call.chars < QUIET_CHARS || call.chars - call.reported < STEP_CHARS) return;
    call.reported = call.chars;
    const what = call.path === undefined ? call.name : `${call.name} ${call.path}`;
    this.#emit({
      type: 'status',
      key: TOOL_INPUT_KEY,
      text: `${what}: receiving ${Math.round(call.chars / 1024)} KB`,
    });
  }
}
