/**
 * A minimal Santra protocol client for benchmarks: it spawns the built server, reads its
 * Content-Length frames straight off the pipe and stamps each with the wall clock of the read, so
 * the numbers include the real framing and JSON cost and no client library of ours.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { track } from './processes.ts';

export const SERVER_BIN = fileURLToPath(new URL('../../dist/santra-server.js', import.meta.url));

/** A JSON object as it came off the wire. */
export type Json = Record<string, unknown>;

/**
 * Milliseconds since the Unix epoch, sub-millisecond precise. Two processes' values differ by their
 * start-up clock error, so delays are only measured between stamps taken in one process.
 */
export const wallClock = (): number => performance.timeOrigin + performance.now();

/** A response and the wall clock at which its bytes were read. */
export interface Reply {
  message: Json;
  at: number;
}

/** A `phase` notification's params and the wall clock at which its bytes were read. */
export type PhaseListener = (phase: Json, at: number) => void;

export interface ClientOptions {
  /** The server's whole environment (never the benchmark's own HOME). */
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Extra Node options for the server, e.g. `--cpu-prof`. */
  nodeArgs?: string[];
  /** The server's own arguments, e.g. `--replay FILE`. */
  args?: string[];
}

const HEADER_END = Buffer.from('\r\n\r\n');
const STDERR_TAIL = 4000;

export class BenchClient {
  readonly child: ChildProcessWithoutNullStreams;
  onPhase: PhaseListener = () => {};
  #buffer: Buffer = Buffer.alloc(0);
  #nextId = 1;
  readonly #pending = new Map<number, { resolve: (reply: Reply) => void; reject: (error: Error) => void }>();
  #stderr = '';
  readonly #exited: Promise<number | null>;
  /** The last `seq` seen per session: a gap means lost phases, which would make the figures lie. */
  readonly #seq = new Map<string, number>();

  constructor(options: ClientOptions) {
    this.child = track(
      spawn(process.execPath, [...(options.nodeArgs ?? []), SERVER_BIN, ...(options.args ?? [])], {
        cwd: options.cwd,
        env: options.env,
        stdio: 'pipe',
      }),
    );
    this.child.stdin.on('error', () => {}); // EPIPE after it died; reported through #exited.
    this.child.stderr.on('data', (chunk: Buffer) => {
      this.#stderr = (this.#stderr + chunk.toString('utf8')).slice(-STDERR_TAIL);
    });
    this.child.stdout.on('data', (chunk: Buffer) => {
      try {
        this.#read(chunk, wallClock());
      } catch (error) {
        this.#fail(error instanceof Error ? error : new Error(String(error)));
        this.child.kill('SIGKILL');
      }
    });
    this.#exited = new Promise((resolve) => this.child.once('exit', (code) => resolve(code)));
    void this.#exited.then((code) =>
      this.#fail(
        new Error(
          `santra-server exited with code ${code} before answering; its stderr ended with:\n${this.#stderr}`,
        ),
      ),
    );
  }

  get pid(): number {
    const pid = this.child.pid;
    if (pid === undefined) throw new Error(`santra-server did not start (${SERVER_BIN}); run npm run build`);
    return pid;
  }

  /** Sends a request and resolves with its response message, rejecting on an error response. */
  async request(method: string, params?: unknown): Promise<Reply> {
    const id = this.#nextId++;
    const answered = new Promise<Reply>((resolve, reject) => this.#pending.set(id, { resolve, reject }));
    this.#write({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
    const reply = await answered;
    if (reply.message.error !== undefined) {
      throw new Error(
        `${method} failed: ${JSON.stringify(reply.message.error)}\nserver stderr:\n${this.#stderr}`,
      );
    }
    return reply;
  }

  notify(method: string, params?: unknown): void {
    this.#write({ jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }) });
  }

  async initialize(workspaceRoot: string): Promise<void> {
    await this.request('initialize', {
      protocolVersion: '0.1.0',
      clientInfo: { name: 'bench-stream' },
      workspaceRoot,
      capabilities: {},
    });
    this.notify('initialized', {});
  }

  /** Ends the server the orderly way (so `--cpu-prof` can write its profile), killing it after 5 s. */
  async close(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5000);
    try {
      await this.request('shutdown');
      this.notify('exit');
    } catch {
      this.child.kill('SIGKILL');
    }
    await this.#exited;
    clearTimeout(timer);
  }

  #fail(error: Error): void {
    for (const { reject } of this.#pending.values()) reject(error);
    this.#pending.clear();
  }

  #write(message: Json): void {
    const body = Buffer.from(JSON.stringify(message), 'utf8');
    this.child.stdin.write(Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`), body]));
  }

  #read(chunk: Buffer, at: number): void {
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    for (;;) {
      const headerEnd = this.#buffer.indexOf(HEADER_END);
      if (headerEnd < 0) return;
      const header = this.#buffer.subarray(0, headerEnd).toString('ascii');
      const length = /Content-Length: *(\d+)/i.exec(header)?.[1];
      if (length === undefined) throw new Error(`a frame without Content-Length: ${JSON.stringify(header)}`);
      const start = headerEnd + HEADER_END.length;
      const end = start + Number(length);
      if (this.#buffer.length < end) return;
      const message = JSON.parse(this.#buffer.subarray(start, end).toString('utf8')) as Json;
      this.#buffer = this.#buffer.subarray(end);
      this.#dispatch(message, at);
    }
  }

  #dispatch(message: Json, at: number): void {
    if (message.method === 'phase') {
      const phase = message.params as Json;
      const session = phase.sessionId as string;
      const previous = this.#seq.get(session);
      if (previous !== undefined && phase.seq !== previous + 1) {
        throw new Error(`phase seq jumped from ${previous} to ${String(phase.seq)} in session ${session}`);
      }
      this.#seq.set(session, phase.seq as number);
      this.onPhase(phase, at);
      return;
    }
    if (typeof message.method === 'string') {
      // With no capabilities declared the server sends no requests; refuse any, never hang it.
      if (message.id !== undefined) {
        this.#write({
          jsonrpc: '2.0',
          id: message.id,
          error: { code: -32601, message: 'bench-stream answers no requests' },
        });
      }
      return;
    }
    const waiter = this.#pending.get(message.id as number);
    if (waiter === undefined) return;
    this.#pending.delete(message.id as number);
    waiter.resolve({ message, at });
  }
}
