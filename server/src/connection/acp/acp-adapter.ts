/**
 * `santra-server acp`: Santra as an Agent Client Protocol agent, for Zed, JetBrains IDEs and
 * Neovim's CodeCompanion and avante. ACP (newline-delimited JSON-RPC) is spoken on stdin/stdout
 * through the official SDK; each ACP session drives a Santra server of its own through an
 * in-process link (acp-agent.ts). stdout carries ACP only; logs go to stderr.
 */
import { Readable, Writable } from 'node:stream';
import { ndJsonStream } from '@agentclientprotocol/sdk';
import type { AdapterOptions } from '../adapters/adapter.ts';
import { createSantraAgent } from './acp-agent.ts';

/** Serves one editor until it closes the connection (end of stdin); then every session is saved and closed. */
export async function runAcpAdapter(options: AdapterOptions): Promise<number> {
  const stream = ndJsonStream(
    Writable.toWeb(options.output),
    Readable.toWeb(options.input) as ReadableStream<Uint8Array>,
  );
  const agent = createSantraAgent(options);
  const connection = agent.app.connect(stream);
  await connection.closed;
  options.log.info('acp: the editor closed the connection; closing its sessions');
  await agent.closeAll();
  return 0;
}
