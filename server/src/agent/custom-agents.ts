/**
 * Agents the user defines as JSON files in `.agents/` at the workspace root, one agent per file.
 * Loading never fails as a whole: each bad file becomes a problem naming the file, the field and
 * what was expected, and the good files still load, so one typo does not cost the user every agent.
 */
import { closest } from '../support/suggest.ts';
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';
import * as z from 'zod';
import { AgentFile, MAX_AGENT_FILE_BYTES } from '#protocol';
import { parseJsonc } from '../config/jsonc.ts';
import { describeFsError, errorCode } from '../support/errno.ts';
import { READ_ONLY_KINDS, type Tool } from '../tools/types.ts';
import { namesMcpTools } from './tool-names.ts';

/** An agent the runtime can run or spawn: a built-in one or one read from `.agents/`. */
export interface AgentDefinition {
  id: string;
  name: string;
  description: string;
  systemPrompt: string;
  toolNames: string[];
  canBeSpawned: boolean;
  /** Where it came from: 'builtin' or the file path relative to the workspace root. */
  source: string;
}

/** Why one `.agents/` file was skipped, fit to show to the user. */
export interface AgentProblem {
  /** Relative to the workspace root, e.g. `.agents/bad.json`. */
  file: string;
  /** Dotted path of the offending field, e.g. `toolNames[2]`; absent when the whole file is at fault. */
  field?: string;
  /** What is wrong and how to fix it. */
  message: string;
}

/** The agents that loaded, sorted by id, and the files that did not. */
export interface LoadedAgents {
  agents: AgentDefinition[];
  problems: AgentProblem[];
}

/** The ways an agent gives its answer. */
const FINISHING_TOOLS: readonly string[] = ['task_completed', 'set_output'];

/**
 * The tools of an agent file that names none: every tool whose kind only reads, plus the ways to
 * finish, so such an agent cannot change anything.
 */
export function defaultAgentTools(tools: readonly Pick<Tool, 'name' | 'kind'>[]): string[] {
  return tools
    .filter((tool) => READ_ONLY_KINDS.has(tool.kind) || FINISHING_TOOLS.includes(tool.name))
    .map((tool) => tool.name);
}

export { MAX_AGENT_FILE_BYTES };

const AGENTS_DIR = '.agents';
const FIELDS = 'id, name, description and systemPrompt';

/**
 * The format of a `.agents/*.json` file: the published AgentFile (protocol §9.3), with what only
 * this workspace knows checked field by field — the id of no built-in agent, tools that exist.
 * Also rendered into docs/tools.md.
 */
export function agentFileSchema(knownTools: ReadonlySet<string>, builtInIds: ReadonlySet<string>) {
  const { id, toolNames } = AgentFile.shape;
  return AgentFile.extend({
    id: id.superRefine((value, ctx) => {
      if (builtInIds.has(value)) {
        ctx.addIssue({
          code: 'custom',
          message: `"${value}" is the id of a built-in agent; choose another id`,
        });
      }
    }),
    toolNames: z
      .array(
        z.string().superRefine((name, ctx) => {
          if (!knownTools.has(name) && !namesMcpTools(name))
            ctx.addIssue({ code: 'custom', message: unknownToolMessage(name, knownTools) });
        }),
      )
      .optional()
      .describe(toolNames.description ?? ''),
  });
}

/**
 * Reads `.agents/*.json` under `workspaceRoot`. Never throws: an unreadable or invalid file is
 * reported in `problems` and skipped; the others load. No `.agents` directory → no agents, no
 * problems. Only `*.json` files directly in `.agents/` are read; subdirectories, other files and
 * hidden files (editor lock and backup files) are ignored. When two files declare the same id,
 * the first in sorted file-name order wins and the later ones are reported.
 */
export async function loadCustomAgents(
  workspaceRoot: string,
  options: {
    /** Every tool the runtime has (the config may deny some; agents may still name them). */
    tools: readonly Pick<Tool, 'name' | 'kind'>[];
    builtInIds: readonly string[];
  },
): Promise<LoadedAgents> {
  const dir = join(workspaceRoot, AGENTS_DIR);
  let names: string[];
  try {
    const entries = await readdir(dir, { withFileTypes: true });
    names = entries
      .filter((entry) => (entry.isFile() || entry.isSymbolicLink()) && isAgentFileName(entry.name))
      .map((entry) => entry.name)
      // Code-unit order, not locale order, so "first file wins" is the same on every machine.
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return { agents: [], problems: [] };
    return {
      agents: [],
      problems: [{ file: AGENTS_DIR, message: `cannot be listed: ${describeFsError(code)}` }],
    };
  }

  const knownTools = new Set(options.tools.map((tool) => tool.name));
  const schema = agentFileSchema(knownTools, new Set(options.builtInIds));
  const defaultTools = defaultAgentTools(options.tools);
  const root = await realpath(workspaceRoot).catch(() => workspaceRoot);
  const agents = new Map<string, AgentDefinition>();
  const problems: AgentProblem[] = [];

  for (const name of names) {
    const file = `${AGENTS_DIR}/${name}`;
    const raw = await readAgentFile(root, join(dir, name));
    if (raw.kind === 'skip') continue;
    if (raw.kind === 'problem') {
      problems.push({ file, message: raw.message });
      continue;
    }
    const parsed = schema.safeParse(raw.value);
    if (!parsed.success) {
      problems.push(...parsed.error.issues.flatMap((issue) => describeIssue(issue, raw.value, file)));
      continue;
    }
    const { id, toolNames, canBeSpawned, ...texts } = parsed.data;
    const earlier = agents.get(id);
    if (earlier !== undefined) {
      problems.push({
        file,
        field: 'id',
        message: `"${id}" is already defined by ${earlier.source}; give this agent another id or remove one of the files`,
      });
      continue;
    }
    agents.set(id, {
      id,
      ...texts,
      toolNames: toolNames === undefined ? [...defaultTools] : [...new Set(toolNames)],
      canBeSpawned: canBeSpawned ?? true,
      source: file,
    });
  }

  const sorted = [...agents.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { agents: sorted, problems };
}

function isAgentFileName(name: string): boolean {
  return name.endsWith('.json') && !name.startsWith('.');
}

type RawFile = { kind: 'json'; value: unknown } | { kind: 'problem'; message: string } | { kind: 'skip' };

async function readAgentFile(root: string, path: string): Promise<RawFile> {
  let real: string;
  try {
    real = await realpath(path);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT') {
      return {
        kind: 'problem',
        message: 'is a symbolic link to a file that does not exist; fix or remove the link',
      };
    }
    return { kind: 'problem', message: `cannot be read: ${describeFsError(code)}` };
  }
  // path.relative, not a string prefix: "/work/app-other" starts with "/work/app" yet is outside it.
  const inside = relative(root, real);
  if (inside === '' || inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside)) {
    return {
      kind: 'problem',
      message:
        'resolves through a symbolic link to a file outside the workspace, which is refused; copy the file into .agents/ instead',
    };
  }

  let buffer: Buffer;
  try {
    const info = await stat(real);
    // A link to a directory is ignored like a directory; a FIFO would block the read forever.
    if (!info.isFile()) return { kind: 'skip' };
    if (info.size > MAX_AGENT_FILE_BYTES) return tooLarge(info.size);
    buffer = await readFile(real);
  } catch (error) {
    return { kind: 'problem', message: `cannot be read: ${describeFsError(errorCode(error))}` };
  }
  // The file may have grown between stat and read.
  if (buffer.length > MAX_AGENT_FILE_BYTES) return tooLarge(buffer.length);

  const body = buffer.toString('utf8').replace(/^\uFEFF/, '');
  if (body.trim() === '') {
    return { kind: 'problem', message: `is empty; expected a JSON object with the fields ${FIELDS}` };
  }
  const parsed = parseJsonc(body);
  if (parsed.ok) return { kind: 'json', value: parsed.value };
  return {
    kind: 'problem',
    message: `is not valid JSON: ${parsed.reason} at line ${parsed.line}, column ${parsed.column}`,
  };
}

function tooLarge(bytes: number): RawFile {
  const kb = (n: number) => `${Math.ceil(n / 1024)} KB`;
  return {
    kind: 'problem',
    message: `is too large (${kb(bytes)}; the limit is ${kb(MAX_AGENT_FILE_BYTES)}); shorten the system prompt`,
  };
}

const AGENT_KEYS = ['id', 'name', 'description', 'systemPrompt', 'toolNames', 'canBeSpawned'];

function describeIssue(issue: z.core.$ZodIssue, raw: unknown, file: string): AgentProblem[] {
  const at = (path: readonly PropertyKey[], message: string): AgentProblem => {
    const field = fieldPath(path);
    return field === '' ? { file, message } : { file, field, message };
  };
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => {
      const guess = closest(key, AGENT_KEYS);
      const hint =
        guess === undefined ? `expected only: ${AGENT_KEYS.join(', ')}` : `did you mean "${guess}"?`;
      return at([...issue.path, key], `unknown field (${hint})`);
    });
  }
  if (issue.code === 'invalid_type') {
    const value = valueAt(raw, issue.path);
    if (issue.path.length === 0) {
      return [at([], `expected a JSON object with the fields ${FIELDS}, got ${kindOf(value)}`)];
    }
    const expected = EXPECTED[issue.expected] ?? issue.expected;
    if (value === undefined) return [at(issue.path, `is required (expected ${expected})`)];
    return [at(issue.path, `expected ${expected}, got ${kindOf(value)}`)];
  }
  return [at(issue.path, issue.message)];
}

const EXPECTED: Record<string, string> = {
  string: 'a string',
  boolean: 'true or false',
  array: 'an array of tool names such as ["read_file", "task_completed"]',
};

function valueAt(raw: unknown, path: readonly PropertyKey[]): unknown {
  let value = raw;
  for (const key of path) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/** The JSON kind of a value, never the value itself. */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'boolean') return 'a boolean';
  return `a ${typeof value}`;
}

function fieldPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((acc, key) => {
    if (typeof key === 'number') return `${acc}[${key}]`;
    return acc === '' ? String(key) : `${acc}.${String(key)}`;
  }, '');
}

function unknownToolMessage(name: string, knownTools: ReadonlySet<string>): string {
  const known = [...knownTools].sort();
  // Tool names are short identifiers, so quoting a valid-looking one helps; anything else is not echoed.
  const shown = /^[A-Za-z0-9_.-]{1,64}$/.test(name) ? `"${name}"` : 'this name';
  const guess = closest(name, known);
  if (guess !== undefined) return `unknown tool ${shown}, did you mean "${guess}"?`;
  return `unknown tool ${shown} (known tools: ${known.join(', ')})`;
}
