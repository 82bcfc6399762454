/**
 * The server side of the client mode: it speaks the protocol on a pair of streams (stdio in the
 * program), answers the lifecycle and list methods itself, hands each `prompt` to the scenario, and
 * records every frame both ways. It never repairs what the client sends: frames are read by
 * FrameReader and kept, valid or not, for the checks.
 */
import { JsonRpcErrorCodes } from '#protocol';
import type { Readable, Writable } from 'node:stream';
import { FrameReader, frame } from './frames.ts';
import { asMessage, isRequest, isResponse, type RpcMessage, sameId, type WireEntry } from './wire.ts';

/**
 * How the connection ended, as the checks need to know it. `killed` is what a provisional report
 * says: the scripted server was stopped (SIGKILL) before it saw the end.
 */
export type Ending = 'exit' | 'end_of_input' | 'deadline' | 'signal' | 'killed';

/** What a scenario does with one `prompt`: resolves with its response. */
export type PromptHandler = (
  run: RunContext,
) => Promise<{ result: unknown } | { error: { code: number; message: string; data: unknown } }>;

/** What a scenario may do while it plays a `prompt`. */
export interface RunContext {
  /** The id of the `prompt` request, as the client wrote it. */
  promptId: unknown;
  /** The capabilities the client declared in `initialize`. */
  capabilities: Record<string, unknown>;
  /** The workspace the client named in `initialize` (the scripted server's directory if none). */
  workspaceRoot: string;
  notify(method: string, params: unknown): void;
  /** Sends a request with this id; resolves with the client's response, or 'cancelled' after `cancel`. */
  request(id: string | number, method: string, params: unknown): Promise<RpcMessage | 'cancelled'>;
  /** Cancels one of the server's requests ($/cancelRequest) and stops waiting for it. */
  cancel(id: string | number): void;
  /** Resolves with the first later client message that satisfies `test`, or undefined at `ms`. */
  waitForClient(test: (m: RpcMessage) => boolean, ms: number): Promise<RpcMessage | undefined>;
  /** Tells the client's driver that the scenario waits for the user (e.g. "cancel"). */
  cue(name: string): void;
  note(text: string): void;
}

export interface PeerOptions {
  input: Readable;
  output: Writable;
  /** The `initialize` result to answer with. */
  initializeResult: unknown;
  onPrompt: PromptHandler;
  onCue: (name: string) => void;
  /** The whole scenario's time limit. */
  deadlineMs: number;
  /** Aborted when the process is told to stop (a client that ends its server with SIGTERM). */
  stop?: AbortSignal;
  /** Called after the transcript grew. */
  onChange?: () => void;
}

interface Waiter {
  test: (m: RpcMessage) => boolean;
  resolve: (m: RpcMessage | undefined) => void;
}

/** Canned answers for the read-only methods a client may call around its prompt. */
const LIST_RESULTS: Record<string, unknown> = {
  'model/list': {
    current: 'scripted/model',
    models: [
      { ref: 'scripted/model', provider: 'scripted', id: 'model', contextWindow: 200000, configured: true },
    ],
  },
  'model/set': { model: 'scripted/model' },
  'agents/list': { agents: [], problems: [] },
  'session/list': { sessions: [], warnings: [] },
};

export class ScriptedPeer {
  readonly transcript: WireEntry[] = [];
  readonly reader = new FrameReader();
  /** The client's `initialize` params, once it sent them. */
  clientParams: Record<string, unknown> | undefined;
  readonly ended: Promise<Ending>;
  readonly #options: PeerOptions;
  readonly #started = Date.now();
  readonly #pending = new Map<string, (m: RpcMessage | 'cancelled') => void>();
  #waiters: Waiter[] = [];
  #end: (how: Ending) => void = () => {};
  #done = false;
  #notedFaults = 0;

  constructor(options: PeerOptions) {
    this.#options = options;
    this.ended = new Promise((resolve) => (this.#end = resolve));
    const deadline = setTimeout(() => this.#finish('deadline'), options.deadlineMs);
    deadline.unref();
    options.stop?.addEventListener('abort', () => this.#finish('signal'));
    // A client that has gone away makes writes fail (EPIPE); its end of input ends the scenario.
    options.output.on('error', (error: Error) => this.note(`writing to the client failed: ${error.message}`));
    options.input.on('data', (chunk: Buffer) => this.#receive(chunk));
    options.input.on('end', () => this.#finish('end_of_input'));
  }

  note(text: string): void {
    this.#record({ at: this.#now(), from: 'note', text });
  }

  #record(entry: WireEntry): void {
    this.transcript.push(entry);
    this.#options.onChange?.();
  }

  #now(): number {
    return Date.now() - this.#started;
  }

  #send(message: unknown): void {
    if (this.#done) return;
    this.#record({ at: this.#now(), from: 'server', message });
    this.#options.output.write(frame(message));
  }

  #receive(chunk: Buffer): void {
    for (const { body, text, faults } of this.reader.push(chunk)) {
      const entry: WireEntry = { at: this.#now(), from: 'client', bytes: body.length, faults };
      try {
        entry.message = JSON.parse(text ?? '');
      } catch {
        entry.text = text ?? '(not UTF-8)';
      }
      this.#record(entry);
      const message = asMessage(entry);
      if (message !== undefined) this.#handle(message);
    }
    this.#noteReaderFaults();
  }

  /** Puts the reader's new faults (an untrusted header, a partial frame) into the transcript, once. */
  #noteReaderFaults(): void {
    for (const fault of this.reader.faults.slice(this.#notedFaults)) this.note(fault);
    this.#notedFaults = this.reader.faults.length;
  }

  #handle(m: RpcMessage): void {
    this.#waiters = this.#waiters.filter((waiter) => {
      if (!waiter.test(m)) return true;
      waiter.resolve(m);
      return false;
    });
    if (isResponse(m)) {
      const key = [...this.#pending.keys()].find((id) => sameId(id, m.id));
      if (key !== undefined) {
        this.#pending.get(key)?.(m);
        this.#pending.delete(key);
      }
      return;
    }
    if (m.method === 'exit') this.#finish('exit');
    else if (isRequest(m)) void this.#answer(m);
  }

  async #answer(m: RpcMessage): Promise<void> {
    const id = m.id;
    switch (m.method) {
      case 'initialize':
        this.clientParams = (m.params ?? {}) as Record<string, unknown>;
        return this.#send({ jsonrpc: '2.0', id, result: this.#options.initializeResult });
      case 'shutdown':
        return this.#send({ jsonrpc: '2.0', id, result: null });
      case 'prompt': {
        const outcome = await this.#options.onPrompt(this.#run(id));
        return this.#send({ jsonrpc: '2.0', id, ...outcome });
      }
      default: {
        const result = LIST_RESULTS[String(m.method)];
        if (result !== undefined) return this.#send({ jsonrpc: '2.0', id, result });
        return this.#send({
          jsonrpc: '2.0',
          id,
          error: {
            code: JsonRpcErrorCodes.MethodNotFound,
            message: `The scripted server does not serve ${String(m.method)}.`,
            data: { retryable: false },
          },
        });
      }
    }
  }

  #run(promptId: unknown): RunContext {
    const capabilities = (this.clientParams?.capabilities ?? {}) as Record<string, unknown>;
    const root = this.clientParams?.workspaceRoot;
    return {
      promptId,
      capabilities,
      workspaceRoot: typeof root === 'string' && root !== '' ? root : process.cwd(),
      notify: (method, params) => this.#send({ jsonrpc: '2.0', method, params }),
      request: (id, method, params) =>
        new Promise((resolve) => {
          this.#pending.set(String(id), resolve);
          this.#send({ jsonrpc: '2.0', id, method, params });
        }),
      cancel: (id) => {
        this.#send({ jsonrpc: '2.0', method: '$/cancelRequest', params: { id } });
        this.#pending.get(String(id))?.('cancelled');
        this.#pending.delete(String(id));
      },
      waitForClient: (test, ms) =>
        new Promise((resolve) => {
          const waiter: Waiter = { test, resolve };
          this.#waiters.push(waiter);
          setTimeout(() => {
            this.#waiters = this.#waiters.filter((w) => w !== waiter);
            resolve(undefined);
          }, ms).unref();
        }),
      cue: (name) => {
        this.note(`cue: ${name}`);
        this.#options.onCue(name);
      },
      note: (text) => this.note(text),
    };
  }

  #finish(how: Ending): void {
    if (this.#done) return;
    // Bytes still waiting for the rest of their frame are a partial frame, whatever ended it.
    this.reader.end();
    this.#noteReaderFaults();
    this.note(`the connection ended: ${how.replaceAll('_', ' ')}`);
    this.#done = true;
    for (const resolve of this.#pending.values()) resolve('cancelled');
    for (const waiter of this.#waiters) waiter.resolve(undefined);
    this.#end(how);
  }
}
