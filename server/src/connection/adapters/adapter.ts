/**
 * The contract between `santra-server lsp|acp` and an editor adapter. An adapter speaks its
 * editor's protocol on `input`/`output` and drives Santra through in-process links; it loads only
 * when its mode is asked for, so the stdio server never pays for LSP or ACP code.
 */
import type { McpServerDefinition } from '../../runtime/contract.ts';
import type { Logger } from '../../support/log.ts';
import type { InProcessLink } from './in-process.ts';

/** What an editor adds to the runtime behind a link. */
export interface LinkExtras {
  mcpServers?: Record<string, McpServerDefinition>;
}

/** The editor protocols the server can speak instead of its own. */
export type AdapterMode = 'lsp' | 'acp';

export interface AdapterOptions {
  /** The editor's side: this process's stdin and stdout. stdout carries the editor protocol only. */
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  /**
   * A fresh Santra server (its own runtime) behind a new in-process link, not yet initialized:
   * one per workspace the editor opens. Close each when done. `extras.mcpServers`: MCP servers the
   * editor passes for the session (ACP), besides those of Santra's config.
   */
  openLink: (extras?: LinkExtras) => InProcessLink;
  log: Logger;
  /** Santra's version, for the editor's initialize result. */
  serverVersion: string;
}

/** Runs until the editor ends the session; resolves with the process exit code. */
export type Adapter = (options: AdapterOptions) => Promise<number>;

export async function loadAdapter(mode: AdapterMode): Promise<Adapter> {
  switch (mode) {
    case 'lsp':
      return (await import('../lsp/lsp-adapter.ts')).runLspAdapter;
    case 'acp':
      return (await import('../acp/acp-adapter.ts')).runAcpAdapter;
  }
}
