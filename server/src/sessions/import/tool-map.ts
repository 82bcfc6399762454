/**
 * Another agent's tool calls in Santra's terms. A call of a tool that does what one of Santra's
 * does is imported as a call of that tool, its arguments renamed (Claude Code's `Read
 * {file_path}` is `read_file {path}`), so the model continuing the session sees the tools it has.
 * A call of a tool with no match is imported as bounded text ("[Claude Code used WebSearch: …]"),
 * never as a call: a model shown calls of a tool it does not have imitates them.
 *
 * The table is data, one row per tool of each agent. The sessions layer knows Santra's tools by
 * name only; server/test/sessions-import.test.ts checks every row against the tool registry (the
 * name exists, its kind is the tool's, the arguments pass its schema).
 */
import type { ImportFormat, ToolKind } from '#protocol';
import { patchCall } from './apply-patch.ts';
import { obj, str } from './transcript.ts';

/** A call as one of Santra's tools. */
export interface SantraCall {
  name: string;
  kind: ToolKind;
  args: Record<string, unknown>;
}

/** What a mapper is given: the call's arguments, and the way to make the agent's paths relative. */
interface MapContext {
  args: Record<string, unknown>;
  /** An absolute path under the agent's working directory as a relative one; others unchanged. */
  path: (value: unknown) => string | undefined;
}

type Mapper = (context: MapContext) => SantraCall | undefined;

/** The kind of each Santra tool a row may name (tools/*.ts; checked against the registry). */
export const SANTRA_KINDS = {
  read_file: 'read',
  list_dir: 'read',
  find_file: 'search',
  grep_search: 'search',
  str_replace: 'edit',
  multi_edit: 'edit',
  write_file: 'edit',
  delete_file: 'delete',
  run_command: 'execute',
  web_fetch: 'fetch',
  web_search: 'fetch',
  todo_write: 'interact',
  spawn_agent: 'agent',
} as const satisfies Record<string, ToolKind>;
type SantraTool = keyof typeof SANTRA_KINDS;

/** A Santra call, with undefined arguments left out; undefined when a required one is missing. */
function call(
  name: SantraTool,
  args: Record<string, unknown>,
  required: readonly string[],
): SantraCall | undefined {
  const present = Object.fromEntries(Object.entries(args).filter(([, value]) => value !== undefined));
  for (const key of required) {
    const value = present[key];
    if (value === undefined || value === '') return undefined;
  }
  return { name, kind: SANTRA_KINDS[name], args: present };
}

const text = (value: unknown) => str(value);
const positive = (value: unknown) =>
  typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined;
const line = (value: unknown) => {
  const number = positive(value);
  return number === undefined ? undefined : Math.max(1, Math.floor(number));
};

/** startLine/endLine of read_file from a first line and a count of lines. */
function lines(offset: unknown, limit: unknown): { startLine?: number; endLine?: number } {
  const start = line(offset);
  const count = line(limit);
  return {
    ...(start === undefined ? {} : { startLine: start }),
    ...(count === undefined ? {} : { endLine: (start ?? 1) + count - 1 }),
  };
}

/** Seconds from milliseconds. */
const seconds = (ms: unknown) => {
  const value = positive(ms);
  return value === undefined ? undefined : value / 1000;
};

/** A command given as argv (Codex's shell), as one command line. */
function commandLine(argv: unknown): string | undefined {
  if (typeof argv === 'string') return argv;
  if (!Array.isArray(argv) || !argv.every((part) => typeof part === 'string')) return undefined;
  const parts = argv;
  // `bash -lc "<script>"`: the script is the command line.
  if (parts.length === 3 && /(^|\/)(ba|z)?sh$/.test(parts[0] as string) && /^-l?c$/.test(parts[1] as string))
    return parts[2];
  return parts
    .map((part) => (/^[\w@%+=:,./-]+$/.test(part) ? part : `'${part.replaceAll("'", "'\\''")}'`))
    .join(' ');
}

function todos(items: unknown, content: string, status: string): SantraCall | undefined {
  if (!Array.isArray(items)) return undefined;
  const list = items.map((raw) => {
    const item = obj(raw);
    return { content: str(item?.[content]) ?? '', status: str(item?.[status]) ?? '' };
  });
  if (
    !list.every(
      (item) => item.content !== '' && ['pending', 'in_progress', 'completed'].includes(item.status),
    )
  )
    return undefined;
  return call('todo_write', { todos: list }, ['todos']);
}

const CLAUDE: Record<string, Mapper> = {
  Read: ({ args, path }) =>
    call('read_file', { path: path(args.file_path), ...lines(args.offset, args.limit) }, ['path']),
  Write: ({ args, path }) =>
    call('write_file', { path: path(args.file_path), content: text(args.content) }, ['path', 'content']),
  Edit: ({ args, path }) =>
    args.replace_all === true
      ? undefined
      : call(
          'str_replace',
          { path: path(args.file_path), oldStr: text(args.old_string), newStr: text(args.new_string) },
          ['path', 'oldStr'],
        ),
  MultiEdit: ({ args, path }) => {
    const edits = Array.isArray(args.edits) ? args.edits.map((raw) => obj(raw)) : [];
    if (edits.length === 0 || edits.some((edit) => edit === undefined || edit.replace_all === true))
      return undefined;
    const mapped = edits.map((edit) => ({
      oldStr: str(edit?.old_string) ?? '',
      newStr: str(edit?.new_string) ?? '',
    }));
    if (mapped.some((edit) => edit.oldStr === '')) return undefined;
    return call('multi_edit', { path: path(args.file_path), edits: mapped }, ['path']);
  },
  Bash: ({ args }) =>
    args.run_in_background === true
      ? undefined
      : call('run_command', { command: text(args.command), timeout: seconds(args.timeout) }, ['command']),
  Grep: ({ args, path }) =>
    args.multiline === true
      ? undefined
      : call(
          'grep_search',
          {
            pattern: text(args.pattern),
            path: path(args.path),
            filePattern:
              text(args.glob) ?? (text(args.type) === undefined ? undefined : `*.${text(args.type)}`),
            caseInsensitive: args['-i'] === true ? true : undefined,
          },
          ['pattern'],
        ),
  Glob: ({ args, path }) =>
    call('find_file', { pattern: text(args.pattern), path: path(args.path) }, ['pattern']),
  LS: ({ args, path }) => call('list_dir', { path: path(args.path) ?? '.' }, ['path']),
  WebFetch: ({ args }) => call('web_fetch', { url: text(args.url) }, ['url']),
  WebSearch: ({ args }) => call('web_search', { query: text(args.query) }, ['query']),
  TodoWrite: ({ args }) => todos(args.todos, 'content', 'status'),
  Task: ({ args }) => {
    // Claude Code's general agent does what Santra's executor does; its Explore agent, the reader.
    const agentId = { 'general-purpose': 'executor', Explore: 'reader' }[text(args.subagent_type) ?? ''];
    return agentId === undefined
      ? undefined
      : call('spawn_agent', { agentId, task: text(args.prompt) }, ['task']);
  },
};

/** Codex's apply_patch, given as a custom tool's input, a function's `{input}`, or a shell's argv. */
const applyPatch = (patch: unknown, path: MapContext['path']): SantraCall | undefined => {
  if (typeof patch !== 'string') return undefined;
  const mapped = patchCall(patch, (value) => path(value) ?? value);
  return mapped === undefined ? undefined : call(mapped.name, mapped.args, ['path']);
};

const shell = (command: unknown, workdir: unknown, timeoutMs: unknown, path: MapContext['path']) => {
  if (Array.isArray(command) && (command[0] === 'apply_patch' || command[0] === 'applypatch'))
    return applyPatch(command[1], path);
  const cwd = path(workdir);
  return call(
    'run_command',
    { command: commandLine(command), cwd: cwd === '.' ? undefined : cwd, timeout: seconds(timeoutMs) },
    ['command'],
  );
};

const CODEX: Record<string, Mapper> = {
  shell: ({ args, path }) => shell(args.command, args.workdir, args.timeout_ms ?? args.timeout, path),
  container_exec: ({ args, path }) => shell(args.command, args.workdir, args.timeout_ms, path),
  shell_command: ({ args, path }) => shell(text(args.command), args.workdir, args.timeout_ms, path),
  exec_command: ({ args, path }) => shell(text(args.cmd), args.workdir, undefined, path),
  local_shell: ({ args, path }) =>
    str(args.type) === 'exec'
      ? shell(args.command, args.working_directory, args.timeout_ms, path)
      : undefined,
  apply_patch: ({ args, path }) => applyPatch(args.input ?? args.patch, path),
  update_plan: ({ args }) => todos(args.plan, 'step', 'status'),
  read_file: ({ args, path }) =>
    call('read_file', { path: path(args.file_path), ...lines(args.offset, args.limit) }, ['path']),
  list_dir: ({ args, path }) => call('list_dir', { path: path(args.dir_path) }, ['path']),
  grep_files: ({ args, path }) =>
    call(
      'grep_search',
      { pattern: text(args.pattern), path: path(args.path), filePattern: text(args.include) },
      ['pattern'],
    ),
};

const PI: Record<string, Mapper> = {
  read: ({ args, path }) =>
    call('read_file', { path: path(args.path), ...lines(args.offset, args.limit) }, ['path']),
  bash: ({ args }) =>
    call('run_command', { command: text(args.command), timeout: positive(args.timeout) }, ['command']),
  edit: ({ args, path }) =>
    call('str_replace', { path: path(args.path), oldStr: text(args.oldText), newStr: text(args.newText) }, [
      'path',
      'oldStr',
    ]),
  write: ({ args, path }) =>
    call('write_file', { path: path(args.path), content: text(args.content) }, ['path', 'content']),
  grep: ({ args, path }) => {
    const pattern = text(args.pattern);
    return call(
      'grep_search',
      {
        pattern: pattern !== undefined && args.literal === true ? escapeRegExp(pattern) : pattern,
        path: path(args.path),
        filePattern: text(args.glob),
        caseInsensitive: args.ignoreCase === true ? true : undefined,
      },
      ['pattern'],
    );
  },
  find: ({ args, path }) =>
    call('find_file', { pattern: text(args.pattern), path: path(args.path) }, ['pattern']),
  ls: ({ args, path }) => call('list_dir', { path: path(args.path) ?? '.' }, ['path']),
};

/** Each agent's tools that have a match among Santra's, by the agent's tool name. */
export const TOOL_MAPS: Readonly<Record<ImportFormat, Readonly<Record<string, Mapper>>>> = {
  claude: CLAUDE,
  codex: CODEX,
  pi: PI,
};

/**
 * The Santra call an agent's tool call amounts to, or undefined when none does (then it is
 * imported as text). `cwd`: the directory the agent worked in.
 */
export function mapToolCall(
  format: ImportFormat,
  name: string,
  args: unknown,
  cwd: string | undefined,
): SantraCall | undefined {
  const mapper = Object.hasOwn(TOOL_MAPS[format], name) ? TOOL_MAPS[format][name] : undefined;
  if (mapper === undefined) return undefined;
  // A custom tool's input (Codex's apply_patch) is text, not an object.
  const record = typeof args === 'string' ? { input: args } : obj(args);
  if (record === undefined) return undefined;
  return mapper({ args: record, path: (value) => relativePath(value, cwd) });
}

/** `value` relative to `cwd` when it is an absolute path inside it; other paths as they are. */
export function relativePath(value: unknown, cwd: string | undefined): string | undefined {
  const path = str(value);
  if (path === undefined || path === '') return undefined;
  if (cwd === undefined || !path.startsWith('/')) return path;
  const root = cwd.endsWith('/') ? cwd.slice(0, -1) : cwd;
  if (path === root) return '.';
  return path.startsWith(`${root}/`) ? path.slice(root.length + 1) : path;
}

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');
}
