/**
 * pi's sessions: `~/.pi/agent/sessions/--<cwd>--/<time>_<id>.jsonl` (pi-mono's
 * packages/coding-agent/docs/session.md). The first line is the header `{type: "session",
 * version, id, timestamp, cwd}`; every other line is an entry with `id` and `parentId`, so the
 * file is a tree (version 2 on; version 1 files are a plain sequence). As pi does on load, the
 * conversation is the path from the last entry back to the root: its `message` entries (user,
 * assistant, toolResult, bashExecution, custom), `custom_message` and `branch_summary` entries,
 * and a `compaction` entry replacing what came before it by its summary and the entries from
 * `firstKeptEntryId` on. Model and thinking-level changes, labels, names and extensions' state
 * are bookkeeping.
 */
import type { Usage } from '#protocol';
import {
  count,
  damaged,
  jsonLines,
  obj,
  type SourceBlock,
  type Step,
  str,
  type Transcript,
  TranscriptError,
} from './transcript.ts';

/** The newest session version this reader knows (pi's CURRENT_SESSION_VERSION). */
const VERSION = 3;

const BOOKKEEPING = new Set(['model_change', 'thinking_level_change', 'custom', 'label', 'session_info']);

interface Entry {
  line: number;
  id: string | undefined;
  parentId: string | undefined;
  value: Record<string, unknown>;
}

export function readPi(content: string, name: string): Transcript {
  const lines = jsonLines(content, name, 'pi');
  const [header, ...rest] = lines;
  if (header === undefined || str(header.value.type) !== 'session')
    throw new TranscriptError(
      `${name}:${header?.number ?? 1}: a pi session starts with its header (a "session" line); this one does not. Nothing was imported.`,
      header?.number ?? 1,
    );
  const version = typeof header.value.version === 'number' ? header.value.version : 1;
  if (version > VERSION)
    throw new TranscriptError(
      `${name}:${header.number}: a pi session of version ${version}; this Santra reads versions 1 to ${VERSION}. Nothing was imported.`,
      header.number,
    );
  const warnings: string[] = [];
  const entries: Entry[] = [];
  for (const { number, value } of rest) {
    const type = str(value.type);
    if (type === undefined) damaged(name, number, 'an entry without a "type"');
    if (version >= 2 && str(value.id) === undefined)
      damaged(name, number, `a "${type}" entry without its "id"`);
    if (!['message', 'custom_message', 'branch_summary', 'compaction'].includes(type)) {
      if (!BOOKKEEPING.has(type))
        warnings.push(`${name}:${number}: skipped an entry of a type this Santra does not know ("${type}")`);
    }
    // Every entry is part of the tree: a later one may hang from it.
    entries.push({ line: number, id: str(value.id), parentId: str(value.parentId), value });
  }
  const path = version >= 2 ? pathToLast(entries) : entries;
  const steps = toSteps(path, name);
  const id = str(header.value.id);
  const cwd = str(header.value.cwd);
  const startedAt = str(header.value.timestamp);
  return {
    format: 'pi',
    ...(id === undefined ? {} : { id }),
    ...(cwd === undefined ? {} : { cwd }),
    ...(startedAt === undefined ? {} : { startedAt }),
    steps,
    skippedLines: 1 + entries.length - path.length + path.filter((e) => !conversational(e)).length,
    warnings,
  };
}

function conversational(entry: Entry): boolean {
  return ['message', 'custom_message', 'branch_summary', 'compaction'].includes(str(entry.value.type) ?? '');
}

/** The entries from the root to the last one, by `parentId`. */
function pathToLast(entries: readonly Entry[]): Entry[] {
  const byId = new Map(entries.filter((e) => e.id !== undefined).map((e) => [e.id as string, e]));
  const path: Entry[] = [];
  const seen = new Set<string>();
  let current = entries.at(-1);
  while (current !== undefined && current.id !== undefined && !seen.has(current.id)) {
    seen.add(current.id);
    path.push(current);
    current = current.parentId === undefined ? undefined : byId.get(current.parentId);
  }
  return path.reverse();
}

function toSteps(path: readonly Entry[], name: string): Step[] {
  const steps: Step[] = [];
  for (const [index, entry] of path.entries()) {
    const type = str(entry.value.type);
    const at = str(entry.value.timestamp);
    if (type === 'compaction') {
      const first = str(entry.value.firstKeptEntryId);
      const from = path.findIndex((e) => e.id === first);
      const kept =
        from === -1 || from > index ? [] : path.slice(from, index).flatMap((e) => entrySteps(e, name));
      steps.push({
        type: 'compaction',
        summary: str(entry.value.summary) ?? '',
        kept,
        ...(at === undefined ? {} : { at }),
      });
    } else steps.push(...entrySteps(entry, name));
  }
  return steps;
}

function entrySteps(entry: Entry, name: string): Step[] {
  const { value, line } = entry;
  const at = str(value.timestamp);
  const when = at === undefined ? {} : { at };
  switch (str(value.type) ?? '') {
    case 'custom_message':
      return [{ type: 'context', text: contentText(value.content), ...when }];
    case 'branch_summary':
      return [
        {
          type: 'context',
          text: `A summary of the branch this conversation came back from:\n\n${str(value.summary) ?? ''}`,
          ...when,
        },
      ];
    case 'message':
      break;
    default:
      return [];
  }
  const message = obj(value.message);
  if (message === undefined) damaged(name, line, 'a "message" entry without its "message"');
  switch (str(message.role) ?? '') {
    case 'user':
      return [{ type: 'prompt', text: contentText(message.content), ...when }];
    case 'assistant': {
      const blocks = assistantBlocks(message.content, name, line);
      const usage = readUsage(message.usage);
      const model =
        str(message.model) === undefined
          ? undefined
          : [str(message.provider), str(message.model)].filter((part) => part !== undefined).join('/');
      const steps: Step[] = [];
      if (blocks.length > 0)
        steps.push({ type: 'assistant', blocks, ...(model === undefined ? {} : { model }), ...when });
      if (usage !== undefined) steps.push({ type: 'usage', usage });
      return steps;
    }
    case 'toolResult': {
      const callId = str(message.toolCallId);
      if (callId === undefined) damaged(name, line, 'a toolResult without its "toolCallId"');
      return [
        {
          type: 'tool_result',
          callId,
          output: contentText(message.content),
          isError: message.isError === true,
          line,
          ...when,
        },
      ];
    }
    case 'bashExecution': {
      // The person ran a command with `!`; `!!` kept it out of the model's context.
      if (message.excludeFromContext === true) return [];
      return [{ type: 'context', text: bashText(message), ...when }];
    }
    case 'custom':
      return [{ type: 'context', text: contentText(message.content), ...when }];
    default:
      damaged(name, line, `a message of a role this Santra does not know ("${str(message.role) ?? ''}")`);
  }
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((raw) => {
      const part = obj(raw);
      if (str(part?.type) === 'text') return str(part?.text) ?? '';
      if (str(part?.type) === 'image')
        return `[an image (${str(part?.mimeType) ?? 'image'}) was attached here; it is not imported]`;
      return '';
    })
    .filter((text) => text !== '')
    .join('\n');
}

function assistantBlocks(content: unknown, name: string, line: number): SourceBlock[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  if (!Array.isArray(content)) damaged(name, line, 'an assistant message whose "content" is not a list');
  const blocks: SourceBlock[] = [];
  for (const raw of content) {
    const block = obj(raw);
    switch (str(block?.type) ?? '') {
      case 'text':
        blocks.push({ type: 'text', text: str(block?.text) ?? '' });
        break;
      case 'thinking':
        blocks.push({ type: 'thinking', text: str(block?.thinking) ?? '' });
        break;
      case 'toolCall': {
        const id = str(block?.id);
        const tool = str(block?.name);
        if (id === undefined || tool === undefined)
          damaged(name, line, 'a toolCall without its "id" or "name"');
        blocks.push({ type: 'tool_call', id, name: tool, args: block?.arguments ?? {} });
        break;
      }
      default:
        damaged(name, line, 'an assistant content block of a type this Santra does not know');
    }
  }
  return blocks;
}

/** How pi puts a command the person ran into the model's context (messages.ts, bashExecutionToText). */
function bashText(message: Record<string, unknown>): string {
  const output = str(message.output) ?? '';
  let text = `Ran \`${str(message.command) ?? ''}\`\n${output === '' ? '(no output)' : `\`\`\`\n${output}\n\`\`\``}`;
  if (message.cancelled === true) text += '\n\n(command cancelled)';
  else if (typeof message.exitCode === 'number' && message.exitCode !== 0)
    text += `\n\nCommand exited with code ${message.exitCode}`;
  return text;
}

function readUsage(value: unknown): Usage | undefined {
  const usage = obj(value);
  if (usage === undefined) return undefined;
  return {
    inputTokens: count(usage.input),
    outputTokens: count(usage.output),
    cacheReadTokens: count(usage.cacheRead),
    cacheWriteTokens: count(usage.cacheWrite),
  };
}
