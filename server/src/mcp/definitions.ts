/**
 * Where MCP servers are defined and what a definition becomes before it starts. Two sources, as in
 * Claude Code: the user's config (`mcpServers`; trusted, since the user wrote it) and the
 * project's `.mcp.json` (supplied by whoever wrote the repository; started only once a person
 * trusted that exact definition, approval/project-trust.ts). A user server wins over a project
 * server of the same name.
 *
 * `${VAR}` and `${VAR:-default}` are expanded in `command`, `args`, `env`, `cwd`, `url`,
 * `headers` and `oauth.clientId`/`clientSecret` only when the server starts. The definition as
 * written is what is shown (trust requests, `mcp/list`) and hashed, so a secret from the
 * environment is never shown or stored; the expanded values of `env`, `headers` and
 * `oauth.clientSecret` are handed to the redactor, so they never reach a log.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { McpJsonSchema, type McpServerDefinition } from '../config/mcp-schema.ts';
import { errorCode, errorMessage } from '../support/errno.ts';

/** The project file Claude Code reads, and so does Santra. */
export const PROJECT_FILE = '.mcp.json';

/** Where the editor's servers come from, as `mcp/list` shows it. */
export const EDITOR_SOURCE = 'the editor (ACP session/new)';

export type McpScope = 'user' | 'project';

/** A server as defined, before expansion. */
export interface McpServerEntry {
  name: string;
  scope: McpScope;
  /** The file it is defined in (the config file, or the project's `.mcp.json`), absolute. */
  source: string;
  definition: McpServerDefinition;
}

/** What reading the definitions found: the servers, and what was wrong (shown once, in `mcp/list`). */
export interface McpDefinitions {
  servers: McpServerEntry[];
  problems: string[];
}

/** The user's servers and the project's, user first; a project server shadowed by a user one is left out. */
export async function readDefinitions(options: {
  userServers: Record<string, McpServerDefinition>;
  /** The editor's servers (ACP session/new): the person's own too; one the config names is left out. */
  editorServers?: Record<string, McpServerDefinition>;
  configFile: string;
  workspaceRoot: string;
  readProject: boolean;
}): Promise<McpDefinitions> {
  const servers: McpServerEntry[] = Object.entries(options.userServers).map(([name, definition]) => ({
    name,
    scope: 'user',
    source: options.configFile,
    definition,
  }));
  const problems: string[] = [];
  for (const [name, definition] of Object.entries(options.editorServers ?? {})) {
    if (servers.some((server) => server.name === name)) {
      problems.push(
        `The editor's MCP server "${name}" was not started: ${options.configFile} defines a server of that name, which is used instead.`,
      );
      continue;
    }
    servers.push({ name, scope: 'user', source: EDITOR_SOURCE, definition });
  }
  if (options.readProject) {
    const project = await readProjectFile(join(options.workspaceRoot, PROJECT_FILE));
    if (project.problem !== undefined) problems.push(project.problem);
    for (const entry of project.servers) {
      if (servers.some((server) => server.name === entry.name)) continue;
      servers.push(entry);
    }
  }
  return { servers, problems };
}

/** The servers of a `.mcp.json`; a missing file has none, a broken one says what is wrong. */
export async function readProjectFile(
  file: string,
): Promise<{ servers: McpServerEntry[]; problem?: string }> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return { servers: [] };
    return {
      servers: [],
      problem: `Cannot read ${file}: ${errorMessage(error)}. Its MCP servers were not started.`,
    };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    return {
      servers: [],
      problem: `${file} is not valid JSON (${errorMessage(error)}). Fix it; its MCP servers were not started.`,
    };
  }
  const parsed = McpJsonSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue === undefined ? '' : `${issue.path.join('.')}: `;
    return {
      servers: [],
      problem: `${file} is not a valid MCP configuration: ${where}${issue?.message ?? 'invalid'}. Fix it; its MCP servers were not started.`,
    };
  }
  return {
    servers: Object.entries(parsed.data.mcpServers ?? {}).map(([name, definition]) => ({
      name,
      scope: 'project',
      source: file,
      definition,
    })),
  };
}

/** A definition with every `${VAR}` replaced; `missing` names the variables that were unset and had no default. */
export interface Expanded {
  definition: McpServerDefinition;
  missing: string[];
  /** The values that came from the environment into `env` and `headers`: secrets to redact. */
  secrets: string[];
}

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** Expands `${VAR}` and `${VAR:-default}` as Claude Code does; an unset variable without default becomes ''. */
export function expandDefinition(definition: McpServerDefinition, env: NodeJS.ProcessEnv): Expanded {
  const missing = new Set<string>();
  const secrets: string[] = [];
  const expand = (value: string, secret = false): string => {
    const result = value.replace(REFERENCE, (_match, name: string, fallback: string | undefined) => {
      const found = env[name];
      if (found !== undefined && found !== '') return found;
      if (fallback !== undefined) return fallback;
      missing.add(name);
      return '';
    });
    if (secret && result !== value) secrets.push(result);
    return result;
  };
  const record = (values: Record<string, string> | undefined, secret: boolean) =>
    values === undefined
      ? undefined
      : Object.fromEntries(Object.entries(values).map(([key, value]) => [key, expand(value, secret)]));
  if ('command' in definition) {
    const env2 = record(definition.env, true);
    return {
      definition: {
        ...definition,
        command: expand(definition.command),
        ...(definition.args === undefined ? {} : { args: definition.args.map((arg) => expand(arg)) }),
        ...(env2 === undefined ? {} : { env: env2 }),
        ...(definition.cwd === undefined ? {} : { cwd: expand(definition.cwd) }),
      },
      missing: [...missing],
      secrets,
    };
  }
  const headers = record(definition.headers, true);
  const { oauth } = definition;
  const oauth2 =
    oauth === undefined
      ? undefined
      : {
          ...oauth,
          ...(oauth.clientId === undefined ? {} : { clientId: expand(oauth.clientId) }),
          ...(oauth.clientSecret === undefined ? {} : { clientSecret: expand(oauth.clientSecret, true) }),
        };
  return {
    definition: {
      ...definition,
      url: expand(definition.url),
      ...(headers === undefined ? {} : { headers }),
      ...(oauth2 === undefined ? {} : { oauth: oauth2 }),
    },
    missing: [...missing],
    secrets,
  };
}

/** The transport a definition asks for. */
export function transportOf(definition: McpServerDefinition): 'stdio' | 'http' | 'sse' {
  return 'command' in definition ? 'stdio' : definition.type;
}
