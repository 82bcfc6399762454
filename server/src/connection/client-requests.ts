/**
 * Requests the server sends to the client (`approve`, `ask`) and the matching of their answers.
 *
 * vscode-jsonrpc's `sendRequest` keeps waiting for the answer after it sends `$/cancelRequest`,
 * so a run whose client never answers a cancelled request would hang forever. Here a cancelled
 * request is settled at once, on the server's side: the `$/cancelRequest` goes out, the caller's
 * promise rejects, and the id is forgotten, so an answer that still arrives is ignored (§6.3).
 */

import type { Message } from 'vscode-jsonrpc/node';
import type * as z from 'zod';
import {
  ApproveResult,
  AskResult,
  FsReadTextFileResult,
  FsWriteTextFileResult,
  type MethodName,
  type Phase,
  TerminalRunResult,
} from '#protocol';
import type { ClientChannel } from '../runtime/contract.ts';
import { errorMessage } from '../support/errno.ts';
import type { Logger } from '../support/log.ts';
import type { MessageId, ResponseEnvelope } from './envelope.ts';

interface Pending {
  method: string;
  resolve(result: unknown): void;
  reject(error: Error): void;
}

export class ClientRequests {
  readonly #write: (message: Message) => Promise<void>;
  readonly #log: Logger;
  readonly #pending = new Map<string, Pending>();
  #nextId = 1;
  #closed: Error | undefined;

  constructor(write: (message: Message) => Promise<void>, log: Logger) {
    this.#write = write;
    this.#log = log;
  }

  /**
   * Sends `method` and resolves with the client's result. Contract: rejects when the client
   * answers with an error, when the request cannot be written, when the connection closes, and at
   * once when `signal` aborts — then `$/cancelRequest` is sent and any later answer is ignored.
   */
  send(method: string, params: unknown, signal: AbortSignal): Promise<unknown> {
    if (this.#closed !== undefined) return Promise.reject(this.#closed);
    if (signal.aborted) return Promise.reject(reason(signal, method));
    const id = this.#nextId++;
    const key = String(id);
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        if (!this.#pending.delete(key)) return;
        this.#log.debug(`${method} ${id} cancelled; an answer that still comes is ignored`);
        this.#write({ jsonrpc: '2.0', method: '$/cancelRequest', params: { id } } as Message).catch(
          (error: unknown) => this.#log.warn(`could not cancel ${method} ${id}: ${errorMessage(error)}`),
        );
        reject(reason(signal, method));
      };
      const settle = () => signal.removeEventListener('abort', onAbort);
      this.#pending.set(key, {
        method,
        resolve: (result) => {
          settle();
          resolve(result);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      });
      signal.addEventListener('abort', onAbort, { once: true });
      this.#write({ jsonrpc: '2.0', id, method, params } as Message).catch((error: unknown) =>
        this.#fail(key, new Error(`${method} could not be sent: ${errorMessage(error)}`)),
      );
    });
  }

  /** Settles the request a response answers; a response to nothing pending is logged and ignored. */
  settle(response: ResponseEnvelope): void {
    const key = response.id === null ? undefined : String(response.id);
    const pending = key === undefined ? undefined : this.#pending.get(key);
    if (key === undefined || pending === undefined) {
      const error = response.error === undefined ? '' : ` (an error: ${errorText(response.error)})`;
      this.#log.debug(
        `ignored a response to ${JSON.stringify(response.id)}${error}: no request of the server with that id is pending (cancelled, already answered, or never sent)`,
      );
      return;
    }
    this.#pending.delete(key);
    if (response.error !== undefined) {
      pending.reject(
        new Error(`the client answered ${pending.method} with error ${errorText(response.error)}`),
      );
    } else {
      pending.resolve(response.result);
    }
  }

  /** Fails the request with this id, if pending: its answer was too large to read. */
  failAnswer(id: MessageId, detail: string): boolean {
    return this.#fail(String(id), new Error(`the client's answer could not be read: ${detail}`));
  }

  /** Fails every pending request and refuses new ones: no answer can arrive any more. */
  close(why: string): void {
    this.#closed = new Error(why);
    for (const key of [...this.#pending.keys()]) this.#fail(key, this.#closed);
  }

  #fail(key: string, error: Error): boolean {
    const pending = this.#pending.get(key);
    if (pending === undefined) return false;
    this.#pending.delete(key);
    pending.reject(error);
    return true;
  }
}

/**
 * What the runtime sends the client: `phase` notifications (dropped once the connection has
 * ended) and requests whose answers are checked against the method table's result schemas.
 */
export function clientChannel(
  requests: ClientRequests,
  write: (message: Message) => Promise<void>,
  hasEnded: () => boolean,
  log: Logger,
): ClientChannel {
  async function request<T extends z.ZodType>(
    method: MethodName,
    params: unknown,
    schema: T,
    signal: AbortSignal,
  ): Promise<z.output<T>> {
    const result = await requests.send(method, params, signal);
    // An answer that raced the cancellation changes nothing.
    signal.throwIfAborted();
    const parsed = schema.safeParse(result);
    if (!parsed.success) {
      throw new Error(
        `the client answered ${method} with an invalid result: ${parsed.error.issues.map((i) => i.message).join('; ')}`,
      );
    }
    return parsed.data;
  }
  return {
    phase: (params: Phase) => {
      if (hasEnded()) return;
      write({ jsonrpc: '2.0', method: 'phase', params } as Message).catch((error: unknown) =>
        log.warn(`phase not sent: ${errorMessage(error)}`),
      );
    },
    approve: (params, signal) => request('approve', params, ApproveResult, signal),
    ask: (params, signal) => request('ask', params, AskResult, signal),
    readTextFile: (params, signal) => request('fs/readTextFile', params, FsReadTextFileResult, signal),
    writeTextFile: (params, signal) => request('fs/writeTextFile', params, FsWriteTextFileResult, signal),
    runTerminal: (params, signal) => request('terminal/run', params, TerminalRunResult, signal),
  };
}

function reason(signal: AbortSignal, method: string): Error {
  return signal.reason instanceof Error ? signal.reason : new Error(`${method} cancelled`);
}

/** `code: message` of a JSON-RPC error object as the client sent it. */
function errorText(error: unknown): string {
  const { code, message } = (typeof error === 'object' && error !== null ? error : {}) as {
    code?: unknown;
    message?: unknown;
  };
  return `${String(code)}: ${String(message)}`;
}
