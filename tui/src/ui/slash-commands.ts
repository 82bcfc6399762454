/**
 * The slash commands of the composer: their names, what they do, and which server method each
 * needs (a command whose method the server does not list is not offered). Pure: the controller
 * carries them out.
 */

export type SlashName =
  | 'help'
  | 'clear'
  | 'model'
  | 'models'
  | 'status'
  | 'cost'
  | 'agents'
  | 'sessions'
  | 'mcp'
  | 'skills'
  | 'memory'
  | 'resume'
  | 'name'
  | 'compact'
  | 'undo'
  | 'rewind'
  | 'export'
  | 'exit';

export interface SlashCommand {
  name: SlashName;
  /** Other names typed for it. */
  aliases: readonly string[];
  /** Argument hint, e.g. "[provider/model]". */
  args: string;
  does: string;
  /** A protocol method the server must offer for the command to be available. */
  needs?: string;
  /** Carried out by the UI alone: runs at once, even while the server is still starting. */
  local?: true;
  /** Refused while a run goes on (Esc stops it first). */
  idle?: true;
}

export const SLASH_COMMANDS: readonly SlashCommand[] = [
  { name: 'help', aliases: [], args: '', does: 'commands and keys', local: true },
  {
    name: 'clear',
    aliases: ['new'],
    args: '',
    does: 'clear the screen and start a new session',
    local: true,
    idle: true,
  },
  {
    name: 'model',
    aliases: [],
    args: '[provider/model]',
    does: 'choose the model (a list without an argument)',
  },
  { name: 'models', aliases: [], args: '', does: 'list the models, with context sizes and prices' },
  { name: 'status', aliases: [], args: '', does: 'project, model, session and server', local: true },
  { name: 'cost', aliases: [], args: '', does: 'tokens and cost of this session', local: true },
  { name: 'agents', aliases: [], args: '', does: 'the agents of this project' },
  { name: 'sessions', aliases: [], args: '', does: 'the saved sessions of this project' },
  {
    name: 'mcp',
    aliases: [],
    args: '[logout NAME]',
    does: "the MCP servers: state, tools, errors; logout NAME forgets a server's sign-in",
    needs: 'mcp/list',
  },
  {
    name: 'skills',
    aliases: [],
    args: '',
    does: 'the skills the model can load, and files skipped',
    needs: 'skills/list',
  },
  {
    name: 'memory',
    aliases: [],
    args: '[add TEXT | add --user TEXT]',
    does: 'the memory files: what is remembered and where (add remembers a fact)',
    needs: 'memory/show',
  },
  {
    name: 'resume',
    aliases: [],
    args: '[session id or name]',
    does: 'continue a saved session (a list without an id)',
  },
  {
    name: 'name',
    aliases: ['rename'],
    args: '[name]',
    does: 'name this session: /resume NAME and --resume NAME find it (--clear removes the name)',
    needs: 'session/rename',
  },
  {
    name: 'compact',
    aliases: [],
    args: '',
    does: 'summarise the older part of the conversation (fewer tokens per prompt)',
    needs: 'session/compact',
    idle: true,
  },
  {
    name: 'undo',
    aliases: [],
    args: '[run]',
    does: 'put back the files of the last change (run: of the last run that made one)',
    needs: 'session/undo',
    idle: true,
  },
  {
    name: 'rewind',
    aliases: [],
    args: '[files] [fork]',
    does: 'go back to just before an earlier prompt (a list), which comes back here to edit; files: also put back the files changed since; fork: as a new session, keeping this one',
    needs: 'session/rewind',
    idle: true,
  },
  { name: 'export', aliases: [], args: '[file]', does: 'write the transcript to a Markdown file' },
  { name: 'exit', aliases: ['quit'], args: '', does: 'leave santra', local: true },
];

/** The commands available with these server methods (undefined: not known yet, so none that need one). */
export function availableCommands(methods: ReadonlySet<string> | undefined): SlashCommand[] {
  return SLASH_COMMANDS.filter(
    (command) => command.needs === undefined || methods?.has(command.needs) === true,
  );
}

export type ParsedInput =
  | { kind: 'text'; text: string }
  | { kind: 'command'; command: SlashCommand; arg: string }
  | { kind: 'unknown_command'; name: string };

/**
 * What the composer's text means: a message, or a command with its argument. A line that starts
 * with "/" but names no command is still a command (unknown), unless it looks like a path
 * ("/usr/bin is empty?"), which is a message.
 */
export function parseInput(text: string, commands: readonly SlashCommand[]): ParsedInput {
  const match = /^\/([a-z-]*)(?:\s+([\s\S]*))?$/i.exec(text.trim());
  if (match === null) return { kind: 'text', text };
  const name = (match[1] as string).toLowerCase();
  const command = commands.find((c) => c.name === name || c.aliases.includes(name));
  if (command !== undefined) return { kind: 'command', command, arg: (match[2] ?? '').trim() };
  return { kind: 'unknown_command', name };
}

/** The commands the composer suggests for what is typed: "/" and a prefix, before any space. */
export function suggestions(text: string, commands: readonly SlashCommand[]): SlashCommand[] {
  const match = /^\/([a-z-]*)$/i.exec(text);
  if (match === null) return [];
  const prefix = (match[1] as string).toLowerCase();
  return commands.filter(
    (c) => c.name.startsWith(prefix) || c.aliases.some((alias) => alias.startsWith(prefix)),
  );
}

/** The /help lines about commands. */
export function commandHelp(commands: readonly SlashCommand[]): string[] {
  const label = (c: SlashCommand) =>
    `/${[c.name, ...c.aliases].join(', /')}${c.args === '' ? '' : ` ${c.args}`}`;
  const width = Math.max(...commands.map((c) => label(c).length));
  return commands.map((c) => `  ${label(c).padEnd(width)}  ${c.does}`);
}
