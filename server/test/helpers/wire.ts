/**
 * A raw wire-level client for tests: it spawns the built server, writes arbitrary bytes (valid
 * frames, broken headers, oversized bodies) and parses every byte of stdout as frames, so a test
 * also proves that stdout carries nothing but protocol.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { removeTempDir, tempDir } from '../../../scripts/temp-dirs.ts';
import { FrameParser } from '../../src/connection/framing.ts';

export const SERVER_BIN = fileURLToPath(new URL('../../../dist/santra-server.js', import.meta.url));

export type Json = Record<string, unknown>;

export function frame(body: string | Json): Buffer {
  const bytes = Buffer.from(typeof body === 'string' ? body : JSON.stringify(body), 'utf8');
  return Buffer.concat([Buffer.from(`Content-Length: ${bytes.length}\r\n\r\n`, 'latin1'), bytes]);
}

export class WireClient {
  readonly child: ChildProcessWithoutNullStreams;
  readonly messages: Json[] = [];
  stderr = '';
  /** Every byte the server wrote to stdout, consumed or not. */
  stdout = '';
  /** Bytes on stdout that were not well-formed frames (must stay empty). */
  readonly strayOutput: string[] = [];
  readonly #waiters: Array<() => void> = [];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  /**
   * `env` is all the server sees besides PATH and a throwaway HOME and SANTRA_HOME: no provider
   * keys or config of the machine running the tests leak in, and nothing touches the real home.
   * That HOME is removed once the server has exited.
   */
  constructor(args: string[] = [], env: NodeJS.ProcessEnv = {}) {
    const home = tempDir('santra-home-');
    this.child = spawn(process.execPath, [SERVER_BIN, ...args], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: {
        PATH: process.env.PATH,
        HOME: home,
        SANTRA_HOME: join(home, 'santra'),
        SANTRA_LOG_LEVEL: 'warn',
        // Memory's extraction after runs is a model call of its own: off, so the scripted turns are
        // the runs' (the memory tests turn it on).
        SANTRA_MEMORY_AUTO_EXTRACT: '0',
        ...env,
      },
    });
    const parser = new FrameParser({ maxMessageBytes: 64 * 1024 * 1024 });
    this.child.stdout.on('data', (chunk: Buffer) => {
      this.stdout += chunk.toString('utf8');
      for (const event of parser.push(chunk)) {
        if (event.type === 'frame') {
          try {
            const message = JSON.parse(event.body.toString('utf8')) as Json;
            this.messages.push(message);
            this.#answerServerRequest(message);
          } catch {
            this.strayOutput.push(event.body.toString('utf8'));
          }
        } else {
          this.strayOutput.push(JSON.stringify(event));
        }
      }
      for (const wake of this.#waiters.splice(0)) wake();
    });
    this.child.stderr.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString('utf8');
    });
    this.exited = once(this.child, 'exit').then(([code, signal]) => ({
      code: code as number | null,
      signal: signal as NodeJS.Signals | null,
    }));
    void this.exited.then(() => removeTempDir(home));
  }

  readonly #handlers = new Map<string, (params: Json) => unknown>();

  /** Answers the server's `method` requests (approve, ask) with what `handler` returns. */
  handle(method: string, handler: (params: Json) => unknown): void {
    this.#handlers.set(method, handler);
  }

  #answerServerRequest(message: Json): void {
    const handler = typeof message.method === 'string' ? this.#handlers.get(message.method) : undefined;
    if (handler === undefined || message.id === undefined) return;
    void Promise.resolve(handler(message.params as Json)).then(
      (result) => this.send({ jsonrpc: '2.0', id: message.id, result }),
      (error: unknown) =>
        this.send({
          jsonrpc: '2.0',
          id: message.id,
          error: { code: -32803, message: String(error), data: { retryable: false } },
        }),
    );
  }

  write(data: Buffer | string): void {
    this.child.stdin.write(data);
  }

  send(message: Json): void {
    this.write(frame(message));
  }

  request(id: number | string, method: string, params?: unknown): void {
    this.send({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
  }

  notify(method: string, params?: unknown): void {
    this.send({ jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }) });
  }

  /** Waits for the first message (not yet consumed) matching `predicate`, and consumes it. */
  async next(predicate: (message: Json) => boolean, timeoutMs = 10_000): Promise<Json> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const index = this.messages.findIndex(predicate);
      if (index !== -1) return this.messages.splice(index, 1)[0] as Json;
      const remaining = deadline - Date.now();
      if (remaining <= 0) {
        throw new Error(
          `no matching message within ${timeoutMs} ms; got ${JSON.stringify(this.messages)}; stderr: ${this.stderr}`,
        );
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, remaining);
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  response(id: number | string | null): Promise<Json> {
    return this.next((m) => m.id === id && m.method === undefined);
  }

  async initialize(workspaceRoot: string, id: number | string = 1, capabilities: Json = {}): Promise<Json> {
    this.request(id, 'initialize', {
      protocolVersion: '0.1.0',
      clientInfo: { name: 'wire-test' },
      workspaceRoot,
      capabilities,
    });
    return this.response(id);
  }

  /** Waits for the process to exit, killing it after `timeoutMs`. */
  async exit(timeoutMs = 10_000): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    const timer = setTimeout(() => this.child.kill('SIGKILL'), timeoutMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }
}
