/**
 * The live channel for sessions kept in files (live-bus.ts): the server running a session listens
 * on a Unix socket, `<config dir>/live/<session id>.sock`; a subscriber connects to it. (Not in
 * the sessions folder: its folders are the projects'.)
 *
 * Why a socket rather than polling the session file: answers have to travel back too, and a
 * socket carries both ways at once, with no delay and nothing left to clean when the host ends
 * (a socket file left by a killed server refuses connections; the next host replaces it). Only
 * its owner may use it: the folder is 0700 and the socket 0600, the same boundary as the session
 * files. A subscriber that finds no socket (the session is not running, or not yet) watches the
 * folder and connects when one appears, and again after each run.
 *
 * A key besides the socket, `<session id>.key` (0600, new for each host), must open every
 * connection (`hello`): connecting takes no read permission on the socket's folder on every
 * system, and the OS sandbox around the agent's commands hides Santra's config directory from
 * them (files), so a command the model runs cannot join the session and answer its own approvals.
 *
 * Messages are JSON, one per line.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, type FSWatcher, mkdirSync, readFileSync, watch, writeFileSync } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { errorCode } from '../support/errno.ts';
import type { Logger } from '../support/log.ts';
import { ProtocolFault } from '../support/protocol-fault.ts';
import {
  type DownMessage,
  DownMessage as DownSchema,
  type HostChannel,
  type JoinedChannel,
  type LiveBus,
  parseMessage,
  type UpMessage,
  UpMessage as UpSchema,
} from './live-bus.ts';

/** Longer socket paths do not fit `sun_path` (108 bytes on Linux, 104 on macOS). */
const MAX_SOCKET_PATH = 103;
/** A line longer than this is not a message of ours: the connection is dropped. */
const MAX_LINE = 64 * 1024 * 1024;
/** How often a waiting subscriber looks for the socket besides watching the folder. */
const RETRY_MS = 250;

export class SocketLiveBus implements LiveBus {
  readonly #dir: string;
  readonly #log: Logger;

  /** `dir`: `<config dir>/live`. */
  constructor(dir: string, log: Logger) {
    this.#dir = dir;
    this.#log = log;
  }

  /** The socket of a session: by its id, or by a hash of it where the id would not fit. */
  pathOf(sessionId: string): string {
    const named = join(this.#dir, `${sessionId}.sock`);
    if (Buffer.byteLength(named) <= MAX_SOCKET_PATH) return named;
    return join(this.#dir, `${createHash('sha256').update(sessionId).digest('hex').slice(0, 16)}.sock`);
  }

  async host(sessionId: string, receive: (message: UpMessage) => void): Promise<HostChannel> {
    const path = this.pathOf(sessionId);
    const nowhere: HostChannel = { send: () => {}, close: () => Promise.resolve() };
    if (Buffer.byteLength(path) > MAX_SOCKET_PATH) {
      this.#log.warn(
        `session ${sessionId} cannot be subscribed to: its socket path ${path} is longer than a Unix socket allows. Point XDG_CONFIG_HOME at a shorter directory.`,
      );
      return nowhere;
    }
    const key = randomBytes(32).toString('hex');
    const clients = new Set<Socket>();
    const server = createServer((socket) => {
      socket.on('error', () => socket.destroy());
      let opened = false;
      readLines(socket, (line) => {
        const message = parseMessage(UpSchema, line, this.#log, 'a subscriber');
        if (!opened) {
          // Nothing is sent to, or taken from, a connection without the key.
          if (message?.kind !== 'hello' || !sameKey(message.key, key)) {
            this.#log.warn(
              `session ${sessionId}: a connection to its live channel without its key was closed`,
            );
            socket.destroy();
            return;
          }
          opened = true;
          clients.add(socket);
          socket.on('close', () => clients.delete(socket));
        }
        if (message !== undefined) receive(message);
      });
    });
    try {
      this.#ensureDir();
      await listen(server, path);
    } catch (error) {
      if (errorCode(error) !== 'EADDRINUSE' || (await answers(path))) {
        this.#log.warn(
          `session ${sessionId}: no live channel (${errorCode(error) === 'EADDRINUSE' ? 'another server is running it' : describe(error)}); subscribers will not see this run live.`,
        );
        return nowhere;
      }
      // Left by a server that was killed: nobody answers on it.
      await unlink(path).catch(() => {});
      try {
        await listen(server, path);
      } catch (again) {
        this.#log.warn(`session ${sessionId}: no live channel (${describe(again)}).`);
        return nowhere;
      }
    }
    chmodSync(path, 0o600);
    const keyFile = keyPath(path);
    try {
      // A new key for each host; the old one (a killed server's) is replaced, never reused.
      await unlink(keyFile).catch(() => {});
      writeFileSync(keyFile, key, { mode: 0o600, flag: 'wx' });
    } catch (error) {
      this.#log.warn(
        `session ${sessionId}: no live channel (its key could not be written: ${describe(error)}).`,
      );
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await unlink(path).catch(() => {});
      return nowhere;
    }
    return {
      send: (message: DownMessage) => {
        const line = `${JSON.stringify(message)}\n`;
        for (const socket of clients) if (socket.writable) socket.write(line);
      },
      close: async () => {
        for (const socket of clients) socket.destroy();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await unlink(path).catch(() => {});
        await unlink(keyFile).catch(() => {});
      },
    };
  }

  join(
    sessionId: string,
    receive: (message: DownMessage) => void,
    connected?: () => void,
  ): Promise<JoinedChannel> {
    const path = this.pathOf(sessionId);
    this.#ensureDir();
    let closed = false;
    let current: Socket | undefined;
    let watcher: FSWatcher | undefined;
    let timer: NodeJS.Timeout | undefined;
    /** Settled by the first attempt: a host running now is connected before `join` resolves. */
    let firstAttempt: (() => void) | undefined;
    let attempts = 0;
    const connect = () => {
      if (closed || current !== undefined) return;
      const socket = createConnection(path);
      const first = attempts++ === 0;
      current = socket;
      socket.on('connect', () => {
        // Read at each connection: each host has its own. None yet: the host is still starting.
        let key: string;
        try {
          key = readFileSync(keyPath(path), 'utf8');
        } catch {
          socket.destroy();
          return;
        }
        socket.write(`${JSON.stringify({ kind: 'hello', key } satisfies UpMessage)}\n`);
        // The first connection comes before the store is read; a later one after phases may
        // have gone by unseen.
        if (!first) connected?.();
        firstAttempt?.();
      });
      socket.on('error', () => socket.destroy());
      socket.on('close', () => {
        if (current === socket) current = undefined;
        firstAttempt?.();
        // Not running (yet), or the run's server ended: wait for the next one.
        if (!closed) timer = setTimeout(connect, RETRY_MS);
      });
      readLines(socket, (line) => {
        const message = parseMessage(DownSchema, line, this.#log, 'the session');
        if (message !== undefined) receive(message);
      });
    };
    try {
      watcher = watch(this.#dir, () => connect());
      watcher.on('error', () => watcher?.close());
    } catch {
      // Polling alone still finds the socket.
    }
    const channel: JoinedChannel = {
      send: (message: UpMessage) => {
        if (current?.writable === true) current.write(`${JSON.stringify(message)}\n`);
      },
      close: () => {
        closed = true;
        clearTimeout(timer);
        watcher?.close();
        current?.destroy();
        return Promise.resolve();
      },
    };
    return new Promise((resolve) => {
      firstAttempt = () => {
        firstAttempt = undefined;
        resolve(channel);
      };
      connect();
    });
  }

  /** Connects once, opens with the host's key, sends `message`, and hangs up. */
  deliver(sessionId: string, message: UpMessage): Promise<boolean> {
    const path = this.pathOf(sessionId);
    let key: string;
    try {
      key = readFileSync(keyPath(path), 'utf8');
    } catch {
      // No key: no server hosts the session now.
      return Promise.resolve(false);
    }
    return new Promise((resolve) => {
      const socket = createConnection(path);
      socket.once('error', () => {
        socket.destroy();
        resolve(false);
      });
      socket.once('connect', () => {
        const lines = [{ kind: 'hello', key } satisfies UpMessage, message].map(
          (m) => `${JSON.stringify(m)}\n`,
        );
        socket.end(lines.join(''), () => resolve(true));
      });
    });
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  #ensureDir(): void {
    try {
      mkdirSync(this.#dir, { recursive: true, mode: 0o700 });
      chmodSync(this.#dir, 0o700);
    } catch (error) {
      throw new ProtocolFault(
        'RequestFailed',
        `Cannot use ${this.#dir} for live sessions: ${describe(error)}. Check that the sessions directory is yours and writable.`,
      );
    }
  }
}

/** The key file beside a socket. */
function keyPath(socketPath: string): string {
  return socketPath.replace(/\.sock$/, '.key');
}

function sameKey(given: string | undefined, key: string): boolean {
  if (given === undefined || given.length !== key.length) return false;
  return timingSafeEqual(Buffer.from(given), Buffer.from(key));
}

function listen(server: Server, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** Whether a server answers on the socket (one that was left by a killed server does not). */
function answers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createConnection(path);
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
}

/** Calls `line` for each newline-ended line the socket reads; drops a connection that sends a runaway line. */
function readLines(socket: Socket, line: (text: string) => void): void {
  let buffered = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffered += chunk;
    let end = buffered.indexOf('\n');
    while (end !== -1) {
      const text = buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      if (text.trim() !== '') line(text);
      end = buffered.indexOf('\n');
    }
    if (buffered.length > MAX_LINE) socket.destroy();
  });
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
