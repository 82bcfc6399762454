/**
 * Claude Code's transcripts: `~/.claude/projects/<project>/<session id>.jsonl`, one record per
 * line. `user` and `assistant` records carry an Anthropic Messages API message and are linked by
 * `parentUuid` to the record before them, so a file is a tree: rewinding and editing a message
 * starts a branch, a `system` record of subtype `compact_boundary` starts a new root (its
 * `logicalParentUuid` names where the conversation was), and a sub-agent's records
 * (`isSidechain: true`, in the file or in `<session id>/subagents/`) form their own chains. The
 * conversation is the chain from the last main-line record back to its root; the rest is left
 * out (counted). One model answer is written as several records (one per content block) sharing
 * its `message.id`; they are one message here.
 *
 * Record types that carry no conversation (summaries, file-history snapshots, queue operations,
 * progress, titles…) are passed over; a type not known here is passed over with a warning naming
 * its line.
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

/** Record types that hold no part of the conversation. */
const BOOKKEEPING = new Set([
  'summary',
  'file-history-snapshot',
  'queue-operation',
  'progress',
  'attachment',
  'custom-title',
  'ai-title',
  'tag',
  'last-prompt',
  'agent-name',
  'permission-mode',
  'pr-link',
  'worktree-state',
]);

interface Entry {
  line: number;
  type: 'user' | 'assistant' | 'system';
  uuid: string;
  parentUuid: string | undefined;
  /** compact_boundary: where the conversation was before it. */
  logicalParentUuid: string | undefined;
  subtype: string | undefined;
  sidechain: boolean;
  record: Record<string, unknown>;
}

export function readClaude(content: string, name: string): Transcript {
  const lines = jsonLines(content, name, 'claude');
  const entries = new Map<string, Entry>();
  const order: Entry[] = [];
  const warnings: string[] = [];
  let sessionId: string | undefined;
  let cwd: string | undefined;
  let bookkeeping = 0;
  for (const { number, value } of lines) {
    const type = str(value.type);
    if (type === undefined) damaged(name, number, 'a record without a "type"');
    if (type !== 'user' && type !== 'assistant' && type !== 'system') {
      if (!BOOKKEEPING.has(type))
        warnings.push(`${name}:${number}: skipped a record of a type this Santra does not know ("${type}")`);
      bookkeeping++;
      continue;
    }
    const uuid = str(value.uuid);
    if (uuid === undefined) {
      // A system notice without a place in the tree holds nothing of the conversation.
      if (type === 'system') {
        bookkeeping++;
        continue;
      }
      damaged(name, number, `a "${type}" record without its "uuid"`);
    }
    if (type !== 'system' && obj(value.message) === undefined)
      damaged(name, number, `a "${type}" record without its "message"`);
    sessionId ??= str(value.sessionId);
    const entry: Entry = {
      line: number,
      type,
      uuid,
      parentUuid: str(value.parentUuid),
      logicalParentUuid: str(value.logicalParentUuid),
      subtype: str(value.subtype),
      sidechain: value.isSidechain === true,
      record: value,
    };
    if (!entry.sidechain) cwd ??= str(value.cwd);
    entries.set(uuid, entry);
    order.push(entry);
  }
  const leaf = order.findLast((entry) => !entry.sidechain && entry.type !== 'system');
  if (leaf === undefined) {
    if (order.some((entry) => entry.sidechain))
      throw new TranscriptError(
        `${name}: only a sub-agent's conversation (every record is a sidechain): import the main transcript, ${sessionId ?? '<session id>'}.jsonl, instead. Nothing was imported.`,
      );
    throw new TranscriptError(
      `${name}: no user or assistant record; this is not a Claude Code transcript, or it holds no conversation. Nothing was imported.`,
    );
  }
  const chain = chainTo(leaf, entries);
  const steps = toSteps(chain, name);
  return {
    format: 'claude',
    ...(sessionId === undefined ? {} : { id: sessionId }),
    ...(cwd === undefined ? {} : { cwd }),
    ...(chain[0] === undefined || str(chain[0].record.timestamp) === undefined
      ? {}
      : { startedAt: str(chain[0].record.timestamp) }),
    steps,
    skippedLines: bookkeeping + order.length - chain.length + chain.filter((e) => e.type === 'system').length,
    warnings,
  };
}

/** The records from the root to `leaf`, across compaction boundaries. */
function chainTo(leaf: Entry, entries: ReadonlyMap<string, Entry>): Entry[] {
  const chain: Entry[] = [];
  const seen = new Set<string>();
  let current: Entry | undefined = leaf;
  while (current !== undefined && !seen.has(current.uuid)) {
    seen.add(current.uuid);
    chain.push(current);
    const parent: string | undefined =
      current.parentUuid ?? (current.subtype === 'compact_boundary' ? current.logicalParentUuid : undefined);
    current = parent === undefined ? undefined : entries.get(parent);
  }
  return chain.reverse();
}

function toSteps(chain: readonly Entry[], name: string): Step[] {
  const steps: Step[] = [];
  let compacted = false;
  let answer: { id: string; step: Extract<Step, { type: 'assistant' }> } | undefined;
  const usages = new Map<string, Usage>();
  const flushUsage = () => {
    for (const usage of usages.values()) steps.push({ type: 'usage', usage });
    usages.clear();
  };
  for (const entry of chain) {
    const at = str(entry.record.timestamp);
    if (entry.type === 'system') {
      if (entry.subtype === 'compact_boundary') compacted = true;
      answer = undefined;
      continue;
    }
    const message = obj(entry.record.message) ?? {};
    if (entry.type === 'assistant') {
      const model = str(message.model);
      // Claude Code's own notices in the model's place (API errors): the model never wrote them.
      if (model === '<synthetic>' || entry.record.isApiErrorMessage === true) continue;
      const id = str(message.id) ?? entry.uuid;
      const blocks = assistantBlocks(message.content, name, entry.line);
      const going = answer?.id === id ? answer : undefined;
      if (going === undefined) flushUsage();
      // Every record of an answer repeats its usage, as far as it had got: the last one counts.
      const usage = readUsage(message.usage);
      if (usage !== undefined) usages.set(id, usage);
      if (going !== undefined) {
        going.step.blocks.push(...blocks);
        continue;
      }
      const step: Extract<Step, { type: 'assistant' }> = {
        type: 'assistant',
        blocks,
        ...(model === undefined ? {} : { model: `anthropic/${model}` }),
        ...(at === undefined ? {} : { at }),
      };
      steps.push(step);
      answer = { id, step };
      continue;
    }
    answer = undefined;
    const text = userSteps(entry, message, at, name);
    // The tokens of the answers before belong to the run a prompt ends.
    if (text.some((step) => step.type === 'prompt')) flushUsage();
    if (compacted && entry.record.isCompactSummary === true) {
      compacted = false;
      const summary = text.map((step) => ('text' in step ? step.text : '')).join('\n');
      steps.push({ type: 'compaction', summary, kept: [], ...(at === undefined ? {} : { at }) });
      continue;
    }
    steps.push(...text);
  }
  flushUsage();
  return steps;
}

/** The steps of a `user` record: tool results, then what the person wrote or the notice it is. */
function userSteps(
  entry: Entry,
  message: Record<string, unknown>,
  at: string | undefined,
  name: string,
): Step[] {
  const when = at === undefined ? {} : { at };
  const content = message.content;
  const meta = entry.record.isMeta === true || entry.record.isCompactSummary === true;
  if (typeof content === 'string') return [textStep(content, meta, when)];
  if (!Array.isArray(content))
    damaged(name, entry.line, 'a "user" message whose "content" is neither text nor a list');
  const steps: Step[] = [];
  const texts: string[] = [];
  for (const raw of content) {
    const block = obj(raw);
    const type = str(block?.type);
    if (block === undefined || type === undefined)
      damaged(name, entry.line, 'a content block without a "type"');
    if (type === 'tool_result') {
      const callId = str(block.tool_use_id);
      if (callId === undefined) damaged(name, entry.line, 'a tool_result without its "tool_use_id"');
      steps.push({
        type: 'tool_result',
        callId,
        output: resultText(block.content),
        isError: block.is_error === true,
        line: entry.line,
        ...when,
      });
    } else if (type === 'text') texts.push(str(block.text) ?? '');
    else if (type === 'image')
      texts.push(`[an image (${imageKind(block)}) was attached here; it is not imported]`);
    else texts.push(`[a "${type}" block was here; it is not imported]`);
  }
  const text = texts.join('\n').trim();
  if (text !== '') steps.push(textStep(text, meta, when));
  return steps;
}

/** A prompt, unless Claude Code wrote it: a notice, a command's output, an interruption. */
function textStep(text: string, meta: boolean, when: { at?: string }): Step {
  const command = slashCommand(text);
  if (command !== undefined) return { type: 'prompt', text: command, ...when };
  if (
    meta ||
    text.startsWith('<local-command-') ||
    text.startsWith('[Request interrupted by user') ||
    text.startsWith('<system-reminder>')
  )
    return { type: 'context', text, ...when };
  return { type: 'prompt', text, ...when };
}

/** `/name args` for the markup Claude Code records a slash command as, else undefined. */
function slashCommand(text: string): string | undefined {
  if (!text.startsWith('<command-')) return undefined;
  const tag = (name: string) => new RegExp(`<${name}>([\\s\\S]*?)</${name}>`).exec(text)?.[1]?.trim();
  const command = tag('command-name');
  if (command === undefined) return undefined;
  return [command.startsWith('/') ? command : `/${command}`, tag('command-args') ?? ''].join(' ').trim();
}

function assistantBlocks(content: unknown, name: string, line: number): SourceBlock[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content))
    damaged(name, line, 'an "assistant" message whose "content" is neither text nor a list');
  const blocks: SourceBlock[] = [];
  for (const raw of content) {
    const block = obj(raw);
    const type = str(block?.type);
    if (block === undefined || type === undefined) damaged(name, line, 'a content block without a "type"');
    switch (type) {
      case 'text':
        blocks.push({ type: 'text', text: str(block.text) ?? '' });
        break;
      case 'thinking':
        blocks.push({ type: 'thinking', text: str(block.thinking) ?? '' });
        break;
      case 'redacted_thinking':
        break;
      case 'tool_use': {
        const id = str(block.id);
        const tool = str(block.name);
        if (id === undefined || tool === undefined)
          damaged(name, line, 'a tool_use without its "id" or "name"');
        blocks.push({ type: 'tool_call', id, name: tool, args: block.input ?? {} });
        break;
      }
      default:
        // Server tools (web search) and their results run inside the API: their record is text.
        blocks.push({
          type: 'text',
          text: `[Claude Code's ${type}: ${JSON.stringify(block.input ?? block.content ?? {})}]`,
        });
    }
  }
  return blocks;
}

/** A tool result's content as text: a string, or text blocks (images noted, not imported). */
function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((raw) => {
      const block = obj(raw);
      if (str(block?.type) === 'text') return str(block?.text) ?? '';
      return `[${block === undefined ? 'a' : `an ${imageKind(block)}`} block; not imported]`;
    })
    .join('\n');
}

function imageKind(block: Record<string, unknown>): string {
  return str(obj(block.source)?.media_type) ?? str(block.type) ?? 'image';
}

function readUsage(value: unknown): Usage | undefined {
  const usage = obj(value);
  if (usage === undefined) return undefined;
  return {
    inputTokens: count(usage.input_tokens),
    outputTokens: count(usage.output_tokens),
    cacheReadTokens: count(usage.cache_read_input_tokens),
    cacheWriteTokens: count(usage.cache_creation_input_tokens),
  };
}
