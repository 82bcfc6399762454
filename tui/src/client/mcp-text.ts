/**
 * The MCP servers as text, from `mcp/list` (protocol §7.7): `santra mcp list` prints it, `/mcp`
 * in the terminal UI notes it in the transcript. One server a block: its state and where it is
 * defined, why it is not running, then its tools (with the policy the config gives each), its
 * prompts (as the slash commands that run them) and how many resources it has.
 *
 * Names, descriptions and errors come from MCP servers and files a repository supplies: they are
 * shown as plain text on one line each (control characters replaced), never interpreted.
 */
import type { McpListResult, McpLogoutResult } from '#protocol';

type McpServerInfo = McpListResult['servers'][number];

export interface McpTextOptions {
  /** The most tools listed per server (the rest counted); undefined: all. */
  maxTools?: number;
  /** Whether each tool's description is shown after its name. */
  descriptions?: boolean;
}

const STATE_TEXT: Record<McpServerInfo['state'], string> = {
  connecting: 'connecting',
  connected: 'connected',
  failed: 'failed',
  disabled: 'disabled',
  needs_trust: 'waiting for trust',
  untrusted: 'not trusted',
  needs_auth: 'needs sign-in',
};

export function mcpText(result: McpListResult, options: McpTextOptions = {}): string {
  const lines: string[] = [];
  if (result.servers.length === 0)
    lines.push(
      'No MCP servers. Define them in the project\'s .mcp.json (Claude Code\'s format) or under "mcpServers" in your config (docs/mcp.md).',
    );
  const width = Math.max(0, ...result.servers.map((server) => oneLine(server.name).length));
  for (const server of result.servers) lines.push(...serverLines(server, width, options));
  if (result.problems.length > 0) {
    lines.push('', 'Problems with the definitions:');
    for (const problem of result.problems) lines.push(`  ${oneLine(problem)}`);
  }
  if (result.toolSearch)
    lines.push(
      '',
      "The MCP tools' schemas would take more than mcp.toolSearchShare of the context: the models get search_mcp_tools and load the tools they need from it.",
    );
  return `${lines.join('\n')}\n`;
}

function serverLines(server: McpServerInfo, width: number, options: McpTextOptions): string[] {
  const where = server.scope === 'user' ? 'your config' : `project (${oneLine(server.source)})`;
  const counts = [
    plural(server.tools.length, 'tool'),
    ...(server.prompts.length > 0 ? [plural(server.prompts.length, 'prompt')] : []),
    ...(server.resources > 0 ? [plural(server.resources, 'resource')] : []),
  ];
  const lines = [
    `${oneLine(server.name).padEnd(width)}  ${STATE_TEXT[server.state].padEnd(17)} ${server.transport} · ${where}${server.state === 'connected' ? ` · ${counts.join(', ')}` : ''}`,
  ];
  const indent = ' '.repeat(width + 2);
  if (server.error !== undefined) lines.push(`${indent}${oneLine(server.error)}`);
  if (server.state === 'needs_auth' && server.authUrl !== undefined)
    lines.push(`${indent}sign-in URL: ${oneLine(server.authUrl)}`);
  const shown = options.maxTools === undefined ? server.tools : server.tools.slice(0, options.maxTools);
  for (const tool of shown) {
    const marks = [tool.policy === 'ask' ? '' : tool.policy, tool.readOnly === true ? 'read-only' : '']
      .filter((mark) => mark !== '')
      .join(', ');
    const description =
      options.descriptions === true && tool.description !== undefined
        ? `  ${oneLine(tool.description).slice(0, 100)}`
        : '';
    lines.push(`${indent}${oneLine(tool.name)}${marks === '' ? '' : ` (${marks})`}${description}`);
  }
  if (shown.length < server.tools.length)
    lines.push(`${indent}… and ${server.tools.length - shown.length} more (santra mcp list shows all)`);
  for (const prompt of server.prompts) lines.push(`${indent}${oneLine(prompt)} (prompt)`);
  return lines;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/** Text from a server or a file on one line, without control characters (no escape sequence reaches the terminal). */
function oneLine(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').trim();
}

/**
 * What `mcp/logout` did, in a sentence after "Signed out of NAME…": whether the authorization
 * server revoked the tokens, or why they stay valid there until they expire.
 */
export function revocationText(revocation: McpLogoutResult['revocation']): string {
  if (revocation === undefined) return '';
  if (revocation.revoked)
    return ' Its authorization server revoked the tokens: they no longer work anywhere.';
  const why = revocation.why === undefined ? '' : ` (${oneLine(revocation.why)})`;
  return ` Its tokens were not revoked${why}: they stay valid at the server until they expire.`;
}
