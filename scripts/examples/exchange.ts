/**
 * Recording and checking the spec's example exchanges against the real server: a stdio client
 * that keeps every message of both directions in order, and the normalisation that turns the
 * volatile values of a real exchange (ids, times, temporary paths) into the stable placeholders
 * the examples show.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { FrameParser } from '../../server/src/connection/framing.ts';
import type { ExampleLine } from '../examples.ts';

export type Json = Record<string, unknown>;

export const SERVER_BIN = fileURLToPath(new URL('../../dist/santra-server.js', import.meta.url));

/** Where the examples say the workspace and the home are. */
export const EXAMPLE_WORKSPACE = '/home/ada/project';
export const EXAMPLE_HOME = '/home/ada';
/** Every ISO timestamp of an example. */
export const EXAMPLE_TIME = '2026-11-23T14:41:28.386Z';

/** How long every command of an example took. */
export const EXAMPLE_DURATION = '0.02 s';

const ISO_TIME = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z/g;
const VOLATILE_IDS = [
  { pattern: /\bses_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, prefix: 'ses_' },
  { pattern: /\brun_[0-9a-f]{8,}\b/g, prefix: 'run_' },
  { pattern: /\bchg_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, prefix: 'chg_' },
  { pattern: /\bevt_[0-9a-f]{8}\b/g, prefix: 'evt_' },
];

/**
 * Replaces a real exchange's volatile values by placeholders (`out`) and back (`in`): session, run,
 * file-change and event ids become `ses_1`, `run_1`, `chg_1`, `evt_1`… in order of first appearance, times become EXAMPLE_TIME and command durations EXAMPLE_DURATION, the
 * workspace and home paths become EXAMPLE_WORKSPACE and EXAMPLE_HOME.
 */
export class Normaliser {
  readonly #toPlaceholder = new Map<string, string>();
  readonly #toReal = new Map<string, string>();
  readonly #counts = new Map<string, number>();

  readonly workspace: string;
  readonly home: string;

  constructor(workspace: string, home: string) {
    this.workspace = workspace;
    this.home = home;
  }

  out(message: Json): Json {
    let text = JSON.stringify(message)
      .replaceAll(this.workspace, EXAMPLE_WORKSPACE)
      .replaceAll(this.home, EXAMPLE_HOME)
      .replace(ISO_TIME, EXAMPLE_TIME)
      .replace(/\bafter \d+(?:\.\d+)? s\b/g, `after ${EXAMPLE_DURATION}`);
    for (const { pattern, prefix } of VOLATILE_IDS)
      text = text.replace(pattern, (real) => {
        let placeholder = this.#toPlaceholder.get(real);
        if (placeholder === undefined) {
          const count = (this.#counts.get(prefix) ?? 0) + 1;
          this.#counts.set(prefix, count);
          placeholder = `${prefix}${count}`;
          this.#toPlaceholder.set(real, placeholder);
          this.#toReal.set(placeholder, real);
        }
        return placeholder;
      });
    return JSON.parse(text) as Json;
  }

  in(message: Json): Json {
    const text = JSON.stringify(message)
      .replaceAll(EXAMPLE_WORKSPACE, this.workspace)
      .replace(/\b(?:ses|run|chg|evt)_\d+\b/g, (placeholder) => this.#toReal.get(placeholder) ?? placeholder);
    return JSON.parse(text) as Json;
  }
}

/** The built server over stdio, every message of both directions kept in order. */
export class ExchangeClient {
  readonly child: ChildProcessWithoutNullStreams;
  /** Server messages not yet taken, in order. */
  readonly pending: Json[] = [];
  /** The whole exchange after `startLog`, as example lines (not normalised). */
  readonly log: ExampleLine[] = [];
  stderr = '';
  #logging = false;
  readonly #handlers = new Map<string, (params: Json, message: Json) => Json | undefined>();
  readonly #waiters: Array<() => void> = [];
  readonly exited: Promise<unknown>;

  constructor(args: string[], env: NodeJS.ProcessEnv) {
    this.child = spawn(process.execPath, [SERVER_BIN, ...args], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH, SANTRA_LOG_LEVEL: 'warn', ...env },
    });
    const parser = new FrameParser({ maxMessageBytes: 64 * 1024 * 1024 });
    this.child.stdout.on('data', (chunk: Buffer) => {
      for (const event of parser.push(chunk)) {
        if (event.type !== 'frame') throw new Error(`not a frame on stdout: ${JSON.stringify(event)}`);
        const message = JSON.parse(event.body.toString('utf8')) as Json;
        if (this.#logging) this.log.push({ from: 'server', message });
        this.pending.push(message);
        const handler = typeof message.method === 'string' ? this.#handlers.get(message.method) : undefined;
        const answer = handler?.((message.params ?? {}) as Json, message);
        if (answer !== undefined) this.send(answer);
      }
      for (const wake of this.#waiters.splice(0)) wake();
    });
    this.child.stderr.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString('utf8');
    });
    this.exited = once(this.child, 'exit');
  }

  /** From now on, every message goes into `log`. */
  startLog(): void {
    this.#logging = true;
  }

  /** Answers the server's `method` messages with the message `handler` returns (if any). */
  handle(method: string, handler: (params: Json, message: Json) => Json | undefined): void {
    this.#handlers.set(method, handler);
  }

  send(message: Json): void {
    if (this.#logging) this.log.push({ from: 'client', message });
    const body = Buffer.from(JSON.stringify(message), 'utf8');
    this.child.stdin.write(Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`), body]));
  }

  /** The next server message matching `predicate` (default: the very next one), taken. */
  async next(predicate: (message: Json) => boolean = () => true, timeoutMs = 15_000): Promise<Json> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const index = this.pending.findIndex(predicate);
      if (index !== -1) return this.pending.splice(index, 1)[0] as Json;
      const remaining = deadline - Date.now();
      if (remaining <= 0)
        throw new Error(
          `no matching server message within ${timeoutMs} ms; pending ${JSON.stringify(this.pending)}; stderr: ${this.stderr}`,
        );
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, remaining);
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Sends a request and waits for its response (taking every message before it). */
  async call(id: number, method: string, params?: unknown): Promise<Json> {
    this.send({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
    const response = await this.next((m) => m.id === id && m.method === undefined);
    this.pending.splice(0);
    return response;
  }

  async close(): Promise<void> {
    this.child.kill('SIGKILL');
    await this.exited;
  }
}
