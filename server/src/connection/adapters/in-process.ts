/**
 * A Santra protocol client inside the server's own process. The editor adapters (`santra lsp`,
 * `santra acp`) speak another protocol to their editor and drive Santra through this link, so the
 * Santra protocol stays the one source of behaviour: the same framing, validation, lifecycle and
 * approval gate as a client on stdio, with two in-memory pipes instead of stdin/stdout.
 */
import { PassThrough } from 'node:stream';
import {
  createMessageConnection,
  type MessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
} from 'vscode-jsonrpc/node';
import type { Runtime } from '../../runtime/contract.ts';
import type { Logger } from '../../support/log.ts';
import { type ConnectionEnd, type ConnectionLimits, serve } from '../connection.ts';

export interface InProcessLink {
  /** The client side of the Santra protocol; call `listen()` after registering handlers. */
  readonly client: MessageConnection;
  /** Resolves when the server side has ended (after `shutdown` and `exit`, or `close()`). */
  readonly ended: Promise<ConnectionEnd>;
  /** Ends the link as a client going away would: the server cancels runs and saves sessions. */
  close(): Promise<ConnectionEnd>;
}

export function linkInProcess(options: {
  runtime: Runtime;
  log: Logger;
  limits: ConnectionLimits;
}): InProcessLink {
  const toServer = new PassThrough();
  const toClient = new PassThrough();
  const server = serve({
    input: toServer,
    output: toClient,
    runtime: options.runtime,
    log: options.log,
    limits: options.limits,
  });
  const client = createMessageConnection(
    new StreamMessageReader(toClient),
    new StreamMessageWriter(toServer),
  );
  return {
    client,
    ended: server.ended,
    close: async () => {
      toServer.end();
      const end = await server.ended;
      client.dispose();
      return end;
    },
  };
}
