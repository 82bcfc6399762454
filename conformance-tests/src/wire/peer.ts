/**
 * A server under test, as a child process the suite talks to over stdio: framed JSON-RPC out,
 * strictly read frames in, and a transcript of both directions (with the time of each message)
 * that the report prints when a check fails. It implements no protocol logic beyond matching
 * responses to requests: every judgement is the scenarios'.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { encodeFrame, FrameReader } from './framing.ts';

export type Json = Record<string, unknown>;

export type TranscriptEntry =
  | { at: number; from: 'client' | 'server'; message: unknown }
  | { at: number; from: 'client-raw'; bytes: string }
  | { at: number; from: 'note' | 'wire-fault'; text: string };

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A wait that ran out: says what was awaited, so the failure reads as a finding. */
export class Timeout extends Error {}

export interface ServerOptions {
  command: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
}

type RequestHandler = (message: Json) => unknown;

interface Waiter {
  matches: (message: Json) => boolean;
  resolve: (message: Json) => void;
  /** The server's output ended: what is awaited will never come. */
  abandon: () => void;
}

const MAX_STDERR_CHARS = 64 * 1024;

export class ServerUnderTest {
  readonly transcript: TranscriptEntry[] = [];
  /** Every message the server sent, in order. */
  readonly received: Json[] = [];
  /** Framing and JSON faults in what the server wrote (§1.2, §1.5). */
  readonly wireFaults: string[] = [];
  /** Client request ids by the method they called, for schema checks of the responses. */
  readonly sentMethods = new Map<string, string>();
  stderr = '';
  /** The environment the server process was started with. */
  readonly env: NodeJS.ProcessEnv;
  readonly exited: Promise<Exit>;
  exit: Exit | undefined;

  readonly #child: ChildProcessWithoutNullStreams;
  readonly #started = Date.now();
  readonly #reader = new FrameReader();
  readonly #handlers = new Map<string, RequestHandler>();
  readonly #listeners: Array<(message: Json, bytes: number) => void> = [];
  #waiters: Waiter[] = [];
  #nextId = 1;
  #inputClosed = false;
  #closed = false;

  constructor(options: ServerOptions) {
    const [program, ...args] = options.command;
    if (program === undefined) throw new Error('no server command given');
    this.env = options.env;
    this.#child = spawn(program, args, { cwd: options.cwd, env: options.env, stdio: 'pipe' });
    this.#child.stdout.on('data', (chunk: Buffer) => this.#onBytes(chunk));
    this.#child.stderr.on('data', (chunk: Buffer) => {
      if (this.stderr.length < MAX_STDERR_CHARS) this.stderr += chunk.toString('utf8');
    });
    // A server that exits early closes its stdin under us; the exit is what the checks look at.
    this.#child.stdin.on('error', () => undefined);
    // Once stdout is closed and read, nothing awaited can still arrive.
    this.#child.once('close', () => {
      this.#closed = true;
      for (const waiter of this.#waiters.splice(0)) waiter.abandon();
    });
    this.exited = new Promise((resolve) => {
      this.#child.once('error', (error) => {
        this.note(`could not start the server: ${error.message}`);
        this.exit = { code: null, signal: null };
        resolve(this.exit);
      });
      this.#child.once('exit', (code, signal) => {
        this.exit = { code, signal };
        this.note(`server exited: ${signal === null ? `code ${code}` : `signal ${signal}`}`);
        resolve(this.exit);
      });
    });
  }

  get elapsed(): number {
    return Date.now() - this.#started;
  }

  note(text: string): void {
    this.transcript.push({ at: this.elapsed, from: 'note', text });
  }

  /** Called with every message the server sends, before any waiter sees it. */
  onMessage(listener: (message: Json, bytes: number) => void): void {
    this.#listeners.push(listener);
  }

  /**
   * Answers the server's requests of `method` with what `handler` returns: a whole message
   * (an object with `jsonrpc`) or, for convenience, a result. `undefined`: leave it unanswered.
   */
  handle(method: string, handler: RequestHandler): void {
    this.#handlers.set(method, handler);
  }

  send(message: unknown): void {
    const object = message as Json;
    // A duplicate id does not replace the request still pending under it.
    const key = String(object.id);
    if (typeof object.method === 'string' && Object.hasOwn(object, 'id') && !this.sentMethods.has(key))
      this.sentMethods.set(key, object.method);
    this.transcript.push({ at: this.elapsed, from: 'client', message });
    this.#write(encodeFrame(JSON.stringify(message)));
  }

  /** Bytes exactly as given, for framing checks. */
  sendRaw(bytes: Buffer | string): void {
    const buffer = typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes;
    this.transcript.push({ at: this.elapsed, from: 'client-raw', bytes: printable(buffer) });
    this.#write(buffer);
  }

  nextId(): number {
    return this.#nextId++;
  }

  /** Sends a request and waits for its response (whatever it is). */
  async request(method: string, params?: unknown, timeoutMs = 10_000): Promise<Json> {
    const id = this.nextId();
    const response = this.waitFor(
      (m) => m.id === id && !Object.hasOwn(m, 'method'),
      timeoutMs,
      `the response to ${method} request ${id}`,
    );
    this.send({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
    return response;
  }

  notify(method: string, params?: unknown): void {
    this.send({ jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }) });
  }

  /** The first message, already received or still to come, that `matches`. */
  waitFor(matches: (message: Json) => boolean, timeoutMs: number, what: string): Promise<Json> {
    const seen = this.received.find(matches);
    if (seen !== undefined) return Promise.resolve(seen);
    if (this.#closed)
      return Promise.reject(new Timeout(`no ${what}: the server closed its output (${this.#exitText()})`));
    return this.next(matches, timeoutMs, what);
  }

  /** The next message still to come that `matches` (not one already received). */
  next(matches: (message: Json) => boolean, timeoutMs: number, what: string): Promise<Json> {
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        matches,
        resolve: (message) => {
          clearTimeout(timer);
          resolve(message);
        },
        abandon: () => {
          clearTimeout(timer);
          reject(new Timeout(`no ${what}: the server closed its output (${this.#exitText()})`));
        },
      };
      const timer = setTimeout(() => {
        this.#waiters = this.#waiters.filter((w) => w !== waiter);
        const state = this.exit === undefined ? '' : ' (the server has exited)';
        reject(new Timeout(`no ${what} within ${timeoutMs / 1000} s${state}`));
      }, timeoutMs);
      this.#waiters.push(waiter);
    });
  }

  /** Waits for the process to end; false when it is still running after `timeoutMs`. */
  async waitForExit(timeoutMs: number): Promise<Exit | undefined> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((resolve) => (timer = setTimeout(resolve, timeoutMs, undefined)));
    const exit = await Promise.race([this.exited, late]);
    clearTimeout(timer);
    return exit;
  }

  closeInput(): void {
    if (this.#inputClosed) return;
    this.#inputClosed = true;
    this.note('client closed the server’s stdin');
    this.#child.stdin.end();
  }

  /** Ends the process if it is still running (SIGKILL: a scenario is over, nothing is to be saved). */
  async stop(): Promise<void> {
    if (this.exit === undefined) this.#child.kill('SIGKILL');
    await this.exited;
  }

  #exitText(): string {
    if (this.exit === undefined) return 'still running';
    return this.exit.signal === null ? `exit code ${this.exit.code}` : `signal ${this.exit.signal}`;
  }

  #write(bytes: Buffer): void {
    if (this.#inputClosed || this.exit !== undefined) return;
    this.#child.stdin.write(bytes);
  }

  #onBytes(chunk: Buffer): void {
    for (const event of this.#reader.push(chunk)) {
      if (event.type === 'garbage') {
        this.#wireFault(`${event.detail}: ${printable(event.bytes)}`);
        continue;
      }
      let message: unknown;
      try {
        message = JSON.parse(event.body.toString('utf8'));
      } catch {
        this.#wireFault(`a frame body that is not JSON: ${printable(event.body.subarray(0, 200))}`);
        continue;
      }
      this.#receive(message, event.body.length);
    }
  }

  #wireFault(text: string): void {
    this.wireFaults.push(text);
    this.transcript.push({ at: this.elapsed, from: 'wire-fault', text });
  }

  #receive(message: unknown, bytes: number): void {
    this.transcript.push({ at: this.elapsed, from: 'server', message });
    if (typeof message !== 'object' || message === null || Array.isArray(message)) {
      this.#wireFault(`a message that is not a JSON object: ${JSON.stringify(message)}`);
      return;
    }
    const object = message as Json;
    this.received.push(object);
    for (const listener of this.#listeners) listener(object, bytes);
    if (!Object.hasOwn(object, 'method') && Object.hasOwn(object, 'result'))
      this.sentMethods.delete(String(object.id));
    for (const waiter of this.#waiters.filter((w) => w.matches(object))) {
      this.#waiters = this.#waiters.filter((w) => w !== waiter);
      waiter.resolve(object);
    }
    this.#answer(object);
  }

  #answer(message: Json): void {
    if (typeof message.method !== 'string' || !Object.hasOwn(message, 'id')) return;
    const handler = this.#handlers.get(message.method);
    if (handler === undefined) return;
    const answer = handler(message);
    if (answer === undefined) return;
    const whole = typeof answer === 'object' && answer !== null && Object.hasOwn(answer, 'jsonrpc');
    this.send(whole ? answer : { jsonrpc: '2.0', id: message.id, result: answer });
  }
}

/** Bytes as readable text: printable ASCII as is, the rest escaped. */
export function printable(bytes: Buffer): string {
  return bytes
    .toString('latin1')
    .replace(/[^\x20-\x7e]/g, (c) =>
      c === '\r' ? '\\r' : c === '\n' ? '\\n' : `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`,
    );
}
