/**
 * `santra mcp list [--json] [--wait SECONDS] [--cwd DIR]`: the MCP servers of this project and of
 * the user's config, with their state, tools and errors, through the protocol's `mcp/list` (§7.7)
 * like every client. Servers start in the background, so the list is taken once none is still
 * connecting (or after `--wait` seconds, a hanging one then shown `connecting`).
 *
 * `santra mcp login SERVER [--wait SECONDS] [--cwd DIR]`: signs in to a remote server that wants
 * OAuth. The server it starts does the sign-in (the SDK's client auth, server/src/mcp/oauth.ts)
 * and shows the authorization URL in `mcp/list` (`needs_auth`, `authUrl`); this prints it, waits
 * while the person signs in in a browser (the redirect comes back to that server on 127.0.0.1)
 * and ends once the server is connected, the tokens kept in Santra's config directory for every
 * later Santra. Nothing is opened automatically.
 *
 * `santra mcp logout SERVER [--cwd DIR]`: forgets a remote server's sign-in (`mcp/logout`): its
 * tokens and registered client are removed from Santra's config directory, so every later Santra
 * asks for a sign-in again.
 *
 * This client has no person to ask, so a project's server it has not seen trusted is shown "not
 * trusted": trusting is done in the terminal UI, where a person answers the question.
 */
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import type { ResultOf } from '#protocol';
import { EXIT } from './args.ts';
import { type ListEnvironment, withProjectSession } from './list-command.ts';
import { mcpText, revocationText } from '../client/mcp-text.ts';
import { PrintError } from '../client/session.ts';

type McpListResult = ResultOf<'mcp/list'>;

/** How long `santra mcp list` waits for servers still connecting, unless `--wait` says otherwise. */
const DEFAULT_WAIT_SECONDS = 10;
/** How long `santra mcp login` waits for the person to sign in, unless `--wait` says otherwise. */
const DEFAULT_LOGIN_SECONDS = 300;
const POLL_MS = 100;

export interface McpCommandOptions {
  json: boolean;
  waitSeconds: number;
  cwd: string;
  cwdGiven: boolean;
}

/** `santra mcp login SERVER`. */
export interface McpLoginOptions {
  login: string;
  waitSeconds: number;
  cwd: string;
  cwdGiven: boolean;
}

/** `santra mcp logout SERVER`. */
export interface McpLogoutOptions {
  logout: string;
  cwd: string;
  cwdGiven: boolean;
}

export const MCP_USAGE =
  'santra mcp list [--json] [--wait SECONDS] [--cwd DIR] | santra mcp login SERVER [--wait SECONDS] [--cwd DIR] | santra mcp logout SERVER [--cwd DIR]';

/** The options of `santra mcp …`, or what is wrong with them. */
export function parseMcpArgs(
  args: readonly string[],
  cwd: string,
): McpCommandOptions | McpLoginOptions | McpLogoutOptions | { error: string } {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      allowPositionals: true,
      options: {
        json: { type: 'boolean' },
        wait: { type: 'string' },
        cwd: { type: 'string' },
      },
    });
  } catch (error) {
    return { error: `${error instanceof Error ? error.message : String(error)}; usage: ${MCP_USAGE}` };
  }
  const [sub, ...more] = parsed.positionals;
  if (sub !== 'list' && sub !== 'login' && sub !== 'logout')
    return {
      error:
        sub === undefined
          ? `santra mcp needs a command; usage: ${MCP_USAGE}`
          : `santra mcp has no command "${sub}"; usage: ${MCP_USAGE}`,
    };
  if ((sub === 'login' || sub === 'logout') && more.length !== 1)
    return {
      error:
        more.length === 0
          ? `santra mcp ${sub} needs the name of the server to sign ${sub === 'login' ? 'in to' : 'out of'} (santra mcp list shows them)`
          : `santra mcp ${sub} takes one server name, got ${more.length}`,
    };
  if (sub === 'logout' && (parsed.values.json !== undefined || parsed.values.wait !== undefined))
    return { error: 'santra mcp logout takes only the server name and --cwd' };
  if (sub === 'list' && more.length > 0)
    return { error: `santra mcp list takes no arguments, got "${more[0]}"` };
  if (sub === 'login' && parsed.values.json !== undefined) return { error: 'santra mcp login has no --json' };
  const defaultWait = sub === 'login' ? DEFAULT_LOGIN_SECONDS : DEFAULT_WAIT_SECONDS;
  const wait = parsed.values.wait === undefined ? defaultWait : Number(parsed.values.wait);
  if (!Number.isFinite(wait) || wait < 0 || wait > 3600)
    return { error: `--wait takes seconds from 0 to 3600, got "${parsed.values.wait}"` };
  if (parsed.values.cwd === '') return { error: '--cwd needs a directory' };
  const place = { cwd: resolve(cwd, parsed.values.cwd ?? '.'), cwdGiven: parsed.values.cwd !== undefined };
  if (sub === 'login') return { login: more[0] as string, waitSeconds: wait, ...place };
  if (sub === 'logout') return { logout: more[0] as string, ...place };
  return {
    json: parsed.values.json ?? false,
    waitSeconds: wait,
    cwd: resolve(cwd, parsed.values.cwd ?? '.'),
    cwdGiven: parsed.values.cwd !== undefined,
  };
}

/** Exit 0, or 1 when a server failed or a definition file has a problem (so scripts can check). */
export async function runMcp(
  options: McpCommandOptions | McpLoginOptions | McpLogoutOptions,
  environment: ListEnvironment,
): Promise<number> {
  const { stdout } = process;
  return withProjectSession(options, environment, async (session) => {
    if ('logout' in options) {
      const { signedOut, revocation } = await session.request('mcp/logout', { server: options.logout });
      stdout.write(
        signedOut
          ? `Signed out of ${options.logout}: its sign-in is removed from Santra's config directory.${revocationText(revocation)} santra mcp login ${options.logout} signs in again.\n`
          : `${options.logout} was not signed in; nothing was removed.\n`,
      );
      return EXIT.ok;
    }
    if ('login' in options)
      return await login(
        options.login,
        () => session.request('mcp/list', {}),
        options.waitSeconds * 1000,
        (text) => stdout.write(text),
      );
    const listed = await settledList(() => session.request('mcp/list', {}), options.waitSeconds * 1000);
    // A sign-in URL leads back to this command's server, gone once it has listed: not shown (the
    // error says to run santra mcp login, whose server waits for the sign-in).
    const result = { ...listed, servers: listed.servers.map(({ authUrl: _gone, ...server }) => server) };
    stdout.write(options.json ? `${JSON.stringify(result)}\n` : mcpText(result, { descriptions: true }));
    const failed = result.servers.some((server) => server.state === 'failed') || result.problems.length > 0;
    return failed ? EXIT.failure : EXIT.ok;
  });
}

/**
 * Waits for `name` to be connected, printing the sign-in URL whenever the server shows a new one;
 * exit 0 once connected, 1 when it cannot be (with why on `write`, as an error).
 */
export async function login(
  name: string,
  list: () => Promise<McpListResult>,
  waitMs: number,
  write: (text: string) => void,
): Promise<number> {
  const deadline = Date.now() + waitMs;
  let shown: string | undefined;
  for (;;) {
    const result = await list();
    const server = result.servers.find((s) => s.name === name);
    if (server === undefined)
      throw new PrintError(
        `santra: there is no MCP server "${name}"${result.servers.length === 0 ? ' (none is defined; docs/mcp.md)' : `; the servers are ${result.servers.map((s) => s.name).join(', ')}`}`,
      );
    if (server.transport === 'stdio')
      throw new PrintError(`santra: "${name}" is a local server (stdio); only a remote server signs in`);
    switch (server.state) {
      case 'connected': {
        const count = server.tools.length;
        write(
          shown === undefined
            ? `${name} is connected: it is signed in already, or needs no sign-in.\n`
            : `Signed in to ${name}: ${count} tool${count === 1 ? '' : 's'} ready. The sign-in is kept in Santra's config directory.\n`,
        );
        return EXIT.ok;
      }
      case 'needs_auth':
        if (server.authUrl !== undefined && server.authUrl !== shown) {
          write(
            `${shown === undefined ? '' : 'A new sign-in was started. '}To sign in to ${name}, open this URL in a browser on this machine:\n\n  ${server.authUrl}\n\nWaiting for the sign-in (up to ${Math.round(waitMs / 1000)} s; Ctrl-C to stop)…\n`,
          );
          shown = server.authUrl;
        }
        break;
      case 'connecting':
      case 'needs_trust':
        break;
      case 'failed':
      case 'untrusted':
      case 'disabled':
        throw new PrintError(
          `santra: ${name} is ${server.state}${server.error === undefined ? '' : `: ${server.error}`}`,
        );
      default: {
        const _exhaustive: never = server.state;
        throw new PrintError(`santra: ${name} is in an unknown state ${String(_exhaustive)}`);
      }
    }
    if (Date.now() >= deadline)
      throw new PrintError(
        shown === undefined
          ? `santra: ${name} did not get as far as a sign-in within ${Math.round(waitMs / 1000)} s (${server.state})`
          : `santra: no sign-in within ${Math.round(waitMs / 1000)} s; run santra mcp login ${name} again`,
      );
    await new Promise((done) => setTimeout(done, POLL_MS));
  }
}

/** `mcp/list` once no server is still connecting, or as it is when `waitMs` has passed. */
export async function settledList(
  list: () => Promise<McpListResult>,
  waitMs: number,
): Promise<McpListResult> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const result = await list();
    const starting = result.servers.some((s) => s.state === 'connecting' || s.state === 'needs_trust');
    if (!starting || Date.now() >= deadline) return result;
    await new Promise((done) => setTimeout(done, POLL_MS));
  }
}
