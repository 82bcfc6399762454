/**
 * `mcp/list` (§7.7): the MCP servers with their state, tools and errors, for every client's
 * `/mcp` view. Servers start in the background (mcp/manager.ts), so a list taken early shows
 * them `connecting`; the definitions themselves are read before it answers.
 */
import { selectModel } from '../agent/model-selection.ts';
import type { ResolvedConfig } from '../config/config.ts';
import type { McpManager } from '../mcp/manager.ts';
import { errorMessage } from '../support/errno.ts';
import { ProtocolFault } from '../support/protocol-fault.ts';
import type { RequestHandlers } from './contract.ts';

/** The context a model of unknown size is taken to have, for the MCP tools' share of it. */
const UNKNOWN_CONTEXT_TOKENS = 200_000;

/**
 * The context window of the model `ref` names (or the config's), against which the MCP tools'
 * schemas are weighed (mcp/tool-search.ts).
 */
export function contextWindowFor(config: ResolvedConfig, ref: string | undefined): number {
  const selection = selectModel(config, ref ?? config.model);
  return selection.ok ? selection.model.contextWindow : UNKNOWN_CONTEXT_TOKENS;
}

export function mcpHandler(
  manager: () => McpManager | undefined,
  toolSearch: () => boolean,
): Required<Pick<RequestHandlers, 'mcp/list' | 'mcp/logout'>> {
  return {
    async 'mcp/logout'(params) {
      const mcp = manager();
      await mcp?.definitionsRead();
      if (mcp === undefined)
        throw new ProtocolFault(
          'InvalidParams',
          `Invalid params for mcp/logout: params.server: there is no MCP server "${params.server}".`,
        );
      return mcp.logout(params.server).catch((error: unknown) => {
        throw new ProtocolFault(
          'InvalidParams',
          `Invalid params for mcp/logout: params.server: ${errorMessage(error)}.`,
        );
      });
    },
    async 'mcp/list'() {
      const mcp = manager();
      if (mcp === undefined) return { servers: [], problems: [], toolSearch: false };
      await mcp.definitionsRead();
      return mcp.list(toolSearch());
    },
  };
}
