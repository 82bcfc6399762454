/**
 * Codex's rollouts: `~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`, one
 * `{timestamp, type, payload}` per line (codex-rs/protocol: `RolloutLine`, `RolloutItem`). The
 * first is `session_meta` (the session's id, cwd, model provider); `response_item` lines are
 * the conversation as the Responses API has it (messages, reasoning, function and custom tool
 * calls with their outputs, local shell calls, web searches); `turn_context` says the model of
 * each turn; `event_msg` lines are what the UI showed — the conversation again, and `token_count`
 * with the tokens spent — and `compacted` marks a compaction. The conversation is read from the
 * response items alone; of the events only the token counts are used.
 *
 * Codex puts its instructions into the conversation as user and developer messages (AGENTS.md,
 * the environment, the sandbox's rules): they describe Codex, not this session, and are left out.
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

/** User messages Codex writes itself: instructions and context, each starting with one of these. */
const INJECTED = [
  '<environment_context>',
  '<user_instructions>',
  '<INSTRUCTIONS>',
  '# AGENTS.md instructions',
  '<permissions instructions>',
  '<turn_aborted>',
];

/** Response items that hold nothing a conversation here can carry. */
const LEFT_OUT_ITEMS = new Set([
  'ghost_snapshot',
  'compaction',
  'compaction_summary',
  'image_generation_call',
  'tool_search_call',
  'tool_search_output',
  'additional_tools',
]);

interface Totals {
  input: number;
  cached: number;
  output: number;
  reasoning: number;
}

export function readCodex(content: string, name: string): Transcript {
  const lines = jsonLines(content, name, 'codex');
  const first = lines[0];
  if (
    first === undefined ||
    str(first.value.type) !== 'session_meta' ||
    obj(first.value.payload) === undefined
  )
    throw new TranscriptError(
      `${name}:${first?.number ?? 1}: a Codex rollout starts with a "session_meta" line; this one does not, so it is not a rollout of a Codex that writes them (0.44 or later). Nothing was imported.`,
      first?.number ?? 1,
    );
  const meta = obj(first.value.payload) ?? {};
  const provider = str(meta.model_provider) ?? 'openai';
  const steps: Step[] = [];
  const warnings: string[] = [];
  let skipped = 0;
  let model: string | undefined;
  let totals: Totals = { input: 0, cached: 0, output: 0, reasoning: 0 };
  for (const { number, value } of lines.slice(1)) {
    const type = str(value.type);
    const payload = obj(value.payload);
    if (type === undefined) damaged(name, number, 'a line without a "type"');
    if (payload === undefined) damaged(name, number, `a "${type}" line without its "payload"`);
    const at = str(value.timestamp);
    switch (type) {
      case 'session_meta':
        skipped++;
        break;
      case 'turn_context':
        model = str(payload.model) === undefined ? model : `${provider}/${str(payload.model)}`;
        skipped++;
        break;
      case 'event_msg': {
        skipped++;
        // The conversation is in the response items; the events add the tokens spent.
        const info = obj(payload.info);
        if (str(payload.type) !== 'token_count' || info === undefined) break;
        const total = obj(info.total_token_usage);
        if (total === undefined) break;
        const now: Totals = {
          input: count(total.input_tokens),
          cached: count(total.cached_input_tokens),
          output: count(total.output_tokens),
          reasoning: count(total.reasoning_output_tokens),
        };
        const usage = difference(now, totals);
        totals = now;
        if (usage !== undefined) steps.push({ type: 'usage', usage });
        break;
      }
      case 'compacted': {
        const kept: Step[] = [];
        const summary = str(payload.message) ?? '';
        const history = Array.isArray(payload.replacement_history) ? payload.replacement_history : [];
        for (const raw of history) {
          const item = obj(raw);
          if (item === undefined) continue;
          const step = itemStep(item, name, number, model, at);
          // The summary is among the items it keeps; here it is the compaction's own.
          if (step !== undefined && !('text' in step && step.text.trim() === summary.trim())) kept.push(step);
        }
        steps.push({ type: 'compaction', summary, kept, ...(at === undefined ? {} : { at }) });
        break;
      }
      case 'response_item': {
        const itemType = str(payload.type);
        if (itemType === undefined) damaged(name, number, 'a response item without a "type"');
        const step = itemStep(payload, name, number, model, at);
        if (step === undefined) {
          skipped++;
          if (!KNOWN_ITEMS.has(itemType) && !LEFT_OUT_ITEMS.has(itemType))
            warnings.push(
              `${name}:${number}: skipped a response item of a type this Santra does not know ("${itemType}")`,
            );
          break;
        }
        steps.push(step);
        break;
      }
      default:
        skipped++;
        warnings.push(`${name}:${number}: skipped a line of a type this Santra does not know ("${type}")`);
    }
  }
  const id = str(meta.id);
  const cwd = str(meta.cwd);
  const startedAt = str(meta.timestamp) ?? str(first.value.timestamp);
  return {
    format: 'codex',
    ...(id === undefined ? {} : { id }),
    ...(cwd === undefined ? {} : { cwd }),
    ...(startedAt === undefined ? {} : { startedAt }),
    steps,
    skippedLines: skipped + 1,
    warnings,
  };
}

/** The response items this reader turns into steps (or leaves out on purpose). */
const KNOWN_ITEMS = new Set([
  'message',
  'reasoning',
  'function_call',
  'function_call_output',
  'custom_tool_call',
  'custom_tool_call_output',
  'local_shell_call',
  'web_search_call',
]);

/** The step of one response item; undefined for one that holds no part of the conversation. */
function itemStep(
  item: Record<string, unknown>,
  name: string,
  line: number,
  model: string | undefined,
  at: string | undefined,
): Step | undefined {
  const when = at === undefined ? {} : { at };
  const assistant = (blocks: SourceBlock[]): Step => ({
    type: 'assistant',
    blocks,
    ...(model === undefined ? {} : { model }),
    ...when,
  });
  switch (str(item.type) ?? '') {
    case 'message': {
      const role = str(item.role);
      const text = messageText(item.content);
      if (role === 'assistant') return assistant([{ type: 'text', text }]);
      if (role !== 'user') return undefined; // developer and system: Codex's instructions
      if (INJECTED.some((prefix) => text.trimStart().startsWith(prefix))) return undefined;
      return { type: 'prompt', text, ...when };
    }
    case 'reasoning': {
      const summary = Array.isArray(item.summary) ? item.summary : [];
      const text = summary.map((part) => str(obj(part)?.text) ?? '').join('\n\n');
      return text === '' ? undefined : assistant([{ type: 'thinking', text }]);
    }
    case 'function_call': {
      const callId = str(item.call_id);
      const tool = str(item.name);
      if (callId === undefined || tool === undefined)
        damaged(name, line, 'a function_call without its "call_id" or "name"');
      const text = str(item.arguments) ?? '';
      let args: unknown = text;
      try {
        args = JSON.parse(text);
      } catch {
        // Kept as the model wrote it; the mapping turns it into text.
      }
      return assistant([{ type: 'tool_call', id: callId, name: tool, args }]);
    }
    case 'custom_tool_call': {
      const callId = str(item.call_id);
      const tool = str(item.name);
      if (callId === undefined || tool === undefined)
        damaged(name, line, 'a custom_tool_call without its "call_id" or "name"');
      return assistant([{ type: 'tool_call', id: callId, name: tool, args: str(item.input) ?? '' }]);
    }
    case 'local_shell_call': {
      const callId = str(item.call_id) ?? str(item.id);
      if (callId === undefined) damaged(name, line, 'a local_shell_call without its "call_id"');
      return assistant([{ type: 'tool_call', id: callId, name: 'local_shell', args: item.action ?? {} }]);
    }
    case 'function_call_output':
    case 'custom_tool_call_output': {
      const callId = str(item.call_id);
      if (callId === undefined) damaged(name, line, `a ${str(item.type)} without its "call_id"`);
      const { output, isError } = callOutput(item.output);
      return { type: 'tool_result', callId, output, isError, line, ...when };
    }
    case 'web_search_call': {
      const action = obj(item.action);
      const query = str(action?.query);
      return assistant([
        { type: 'text', text: `[Codex searched the web${query === undefined ? '' : ` for "${query}"`}]` },
      ]);
    }
    default:
      return undefined;
  }
}

function messageText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((raw) => {
      const part = obj(raw);
      const type = str(part?.type);
      if (type === 'input_text' || type === 'output_text' || type === 'text') return str(part?.text) ?? '';
      if (type === 'input_image') return '[an image was attached here; it is not imported]';
      return '';
    })
    .filter((text) => text !== '')
    .join('\n');
}

/**
 * A tool's output as text. Codex has written it as a string (for shell calls once a JSON text of
 * `{output, metadata: {exit_code}}`), as content items, and as `{content, success}`.
 */
function callOutput(raw: unknown): { output: string; isError: boolean } {
  if (typeof raw === 'string') {
    try {
      const parsed = obj(JSON.parse(raw));
      const output = str(parsed?.output);
      const exit = obj(parsed?.metadata)?.exit_code;
      if (output !== undefined) return { output, isError: typeof exit === 'number' && exit !== 0 };
    } catch {
      // Plain text.
    }
    const exit = /^Exit code: (\d+)/.exec(raw)?.[1];
    return { output: raw, isError: exit !== undefined && exit !== '0' };
  }
  if (Array.isArray(raw)) return { output: messageText(raw), isError: false };
  const payload = obj(raw);
  if (payload !== undefined) {
    const content = payload.content ?? payload.body;
    return {
      output: typeof content === 'string' ? content : messageText(content),
      isError: payload.success === false,
    };
  }
  return { output: '', isError: false };
}

/** Tokens spent between two running totals (OpenAI counts cached input within input). */
function difference(now: Totals, before: Totals): Usage | undefined {
  const input = Math.max(0, now.input - before.input);
  const cached = Math.max(0, now.cached - before.cached);
  const output = Math.max(0, now.output - before.output);
  const reasoning = Math.max(0, now.reasoning - before.reasoning);
  if (input === 0 && output === 0) return undefined;
  return {
    inputTokens: Math.max(0, input - cached),
    outputTokens: output,
    cacheReadTokens: cached,
    cacheWriteTokens: 0,
    ...(reasoning === 0 ? {} : { reasoningTokens: reasoning }),
  };
}
