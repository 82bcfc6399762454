/**
 * A transcript's steps as Santra's conversation: runs (one per prompt) of messages the providers
 * can send, each with the phases a client shows for it.
 *
 * What the providers need is made to hold whatever the transcript has: an assistant's content
 * that the agent wrote as several items is one message; every tool call has its result in the
 * user message right after it (a call the transcript has no result for gets one saying so); a
 * result whose call is not in the conversation is left out; tool call ids are ones both wire
 * APIs take, unique in the conversation. The agent's reasoning is kept for the record but bound
 * to the agent (ThinkingBlock.context), so no provider is sent it: a signature or encrypted
 * reasoning is only good for the conversation it was made in.
 */
import { createHash } from 'node:crypto';
import type { ImportFormat, Phase, Usage } from '#protocol';
import type { AssistantBlock, ChatMessage, TextBlock, ToolResultBlock } from '../../providers/messages.ts';
import { addUsage, EMPTY_USAGE } from '../../providers/stream.ts';
import { mapToolCall } from './tool-map.ts';
import { AGENT_NAMES, type SourceBlock, type Step, type Transcript, TranscriptError } from './transcript.ts';

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
/** A phase without what the records' writer adds: the run, the session, the agent and the seq. */
export type PhaseDraft = DistributiveOmit<
  Phase,
  'runId' | 'sessionId' | 'agentId' | 'parentAgentId' | 'agentRole' | 'seq'
>;

export type ImportedItem =
  | { type: 'message'; message: ChatMessage; phases: PhaseDraft[] }
  /** The conversation before it is replaced by `summary`. */
  | { type: 'compaction'; summary: ChatMessage; at?: string };

export interface RunDraft {
  prompt: string;
  at?: string;
  /** The time of the run's last step. */
  lastAt?: string;
  /** The first model the agent used in the run, as `provider/model`. */
  model?: string;
  usage?: Usage;
  items: ImportedItem[];
  /** The run's last answer text. */
  output: string;
}

export interface ImportCounts {
  runs: number;
  messages: number;
  toolCalls: number;
  mappedToolCalls: number;
  textToolCalls: number;
}

export interface Conversion {
  runs: RunDraft[];
  warnings: string[];
}

/** Both wire APIs take these ids (providers/tool-call-id.ts): Anthropic's rule is the narrower. */
const PORTABLE_ID = /^[A-Za-z0-9_-]{1,40}$/;
/** How much of an unmatched call's arguments, and of its result, the bounded text keeps. */
const CALL_TEXT_CHARS = 2_000;
const RESULT_TEXT_CHARS = 4_000;
/** How much of a matched call's result is kept (a file read whole, a long command output). */
const RESULT_CHARS = 50_000;

export function convert(transcript: Transcript, name: string): Conversion {
  const builder = new Builder(transcript.format, transcript.cwd);
  for (const step of transcript.steps) builder.step(step);
  builder.end();
  if (builder.runs.length === 0)
    throw new TranscriptError(`${name}: no prompt in the conversation: nothing to import.`);
  return { runs: builder.runs, warnings: builder.warnings };
}

interface PendingCall {
  id: string;
  /** Santra's tool, or the agent's for one imported as text. */
  name: string;
  asText: boolean;
}

class Builder {
  readonly runs: RunDraft[] = [];
  readonly warnings: string[] = [];
  readonly #format: ImportFormat;
  readonly #agent: string;
  readonly #cwd: string | undefined;
  /** What comes before the first prompt; it joins the first run. */
  readonly #preamble: ImportedItem[] = [];
  #preambleUsage: Usage | undefined;
  #assistant: { blocks: AssistantBlock[]; phases: PhaseDraft[] } | undefined;
  /** Calls of the last assistant message still waiting for their result, by the agent's id. */
  readonly #calls = new Map<string, PendingCall>();
  #results: ToolResultBlock[] = [];
  #notes: TextBlock[] = [];
  #resultPhases: PhaseDraft[] = [];
  /** Tool call ids in the conversation since its last compaction. */
  #ids = new Set<string>();
  /** While the steps a compaction kept are added again: no phases, not counted again. */
  #quiet = false;

  constructor(format: ImportFormat, cwd: string | undefined) {
    this.#format = format;
    this.#agent = AGENT_NAMES[format];
    this.#cwd = cwd;
  }

  step(step: Step): void {
    switch (step.type) {
      case 'assistant':
        // More of the answer being written, or a new answer after the results of the last one.
        if (this.#assistant === undefined) this.#closeUser();
        for (const block of step.blocks) this.#assistantBlock(block);
        this.#runNote(step.at, step.model);
        break;
      case 'tool_result':
        this.#closeAssistant();
        this.#result(step);
        this.#runNote(step.at);
        break;
      case 'prompt':
        this.#closeAll();
        if (step.text.trim() === '') break;
        if (!this.#quiet) this.#startRun(step.text, step.at);
        this.#push({ role: 'user', content: [{ type: 'text', text: step.text }] }, []);
        break;
      case 'context':
        this.#closeAll();
        if (step.text.trim() !== '')
          this.#push({ role: 'user', content: [{ type: 'text', text: step.text }] }, []);
        this.#runNote(step.at);
        break;
      case 'usage': {
        if (this.#quiet) break;
        const run = this.runs.at(-1);
        if (run === undefined) this.#preambleUsage = addUsage(this.#preambleUsage ?? EMPTY_USAGE, step.usage);
        else run.usage = addUsage(run.usage ?? EMPTY_USAGE, step.usage);
        break;
      }
      case 'compaction': {
        this.#closeAll();
        const summary = `This conversation was compacted by ${this.#agent}. Its summary of what came before:\n\n${step.summary}`;
        this.#items().push({
          type: 'compaction',
          summary: { role: 'user', content: [{ type: 'text', text: summary }] },
          ...(step.at === undefined ? {} : { at: step.at }),
        });
        this.#ids = new Set();
        const quiet = this.#quiet;
        this.#quiet = true;
        for (const kept of step.kept) this.step(kept);
        this.#closeAll();
        this.#quiet = quiet;
        this.#runNote(step.at);
        break;
      }
      default: {
        const exhaustive: never = step;
        throw new Error(`unknown step ${JSON.stringify(exhaustive)}`);
      }
    }
  }

  end(): void {
    this.#closeAll();
  }

  #startRun(prompt: string, at: string | undefined): void {
    const run: RunDraft = {
      prompt,
      ...(at === undefined ? {} : { at, lastAt: at }),
      items: [],
      output: '',
    };
    if (this.runs.length === 0) {
      run.items.push(...this.#preamble);
      if (this.#preambleUsage !== undefined) run.usage = this.#preambleUsage;
    }
    this.runs.push(run);
  }

  #runNote(at: string | undefined, model?: string): void {
    const run = this.runs.at(-1);
    if (run === undefined || this.#quiet) return;
    if (at !== undefined) run.lastAt = at;
    if (model !== undefined) run.model ??= model;
  }

  #items(): ImportedItem[] {
    return this.runs.at(-1)?.items ?? this.#preamble;
  }

  #push(message: ChatMessage, phases: PhaseDraft[]): void {
    this.#items().push({ type: 'message', message, phases: this.#quiet ? [] : phases });
  }

  #assistantBlock(block: SourceBlock): void {
    this.#assistant ??= { blocks: [], phases: [] };
    const { blocks, phases } = this.#assistant;
    switch (block.type) {
      case 'text':
        if (block.text === '') return;
        blocks.push({ type: 'text', text: block.text });
        phases.push({ type: 'text', text: block.text });
        return;
      case 'thinking':
        if (block.text === '') return;
        blocks.push({ type: 'thinking', text: block.text, context: `imported:${this.#format}` });
        phases.push({ type: 'thinking', text: block.text });
        return;
      case 'tool_call': {
        const id = this.#toolCallId(block.id);
        const mapped = mapToolCall(this.#format, block.name, block.args, this.#cwd);
        if (mapped === undefined) {
          const text = `[${this.#agent} used ${block.name}: ${cut(argumentText(block.args), CALL_TEXT_CHARS)}]`;
          blocks.push({ type: 'text', text });
          phases.push({
            type: 'tool_call',
            toolCallId: id,
            toolName: block.name,
            args:
              typeof block.args === 'object' && block.args !== null && !Array.isArray(block.args)
                ? (block.args as Record<string, unknown>)
                : { input: block.args },
            summary: `${this.#agent}: ${block.name}`,
          });
          this.#calls.set(block.id, { id, name: block.name, asText: true });
          return;
        }
        blocks.push({
          type: 'tool_call',
          id,
          name: mapped.name,
          args: mapped.args,
          argsText: JSON.stringify(mapped.args),
        });
        phases.push({
          type: 'tool_call',
          toolCallId: id,
          toolName: mapped.name,
          kind: mapped.kind,
          args: mapped.args,
          summary: callSummary(mapped.name, mapped.args),
        });
        this.#calls.set(block.id, { id, name: mapped.name, asText: false });
        return;
      }
      default: {
        const exhaustive: never = block;
        throw new Error(`unknown block ${JSON.stringify(exhaustive)}`);
      }
    }
  }

  #result(step: Extract<Step, { type: 'tool_result' }>): void {
    const call = this.#calls.get(step.callId);
    if (call === undefined) {
      if (!this.#quiet)
        this.warnings.push(
          `line ${step.line}: left out the result of tool call ${step.callId}, whose call is not in the conversation`,
        );
      return;
    }
    this.#calls.delete(step.callId);
    this.#addResult(call, step.output, step.isError);
  }

  #addResult(call: PendingCall, output: string, isError: boolean): void {
    if (call.asText) {
      const text = `[What ${call.name} gave ${this.#agent}${isError ? ' (an error)' : ''}: ${cut(output, RESULT_TEXT_CHARS)}]`;
      this.#notes.push({ type: 'text', text });
    } else {
      this.#results.push({
        type: 'tool_result',
        toolCallId: call.id,
        toolName: call.name,
        output: cut(output, RESULT_CHARS),
        isError,
      });
    }
    this.#resultPhases.push({
      type: 'tool_result',
      toolCallId: call.id,
      toolName: call.name,
      status: isError ? 'error' : 'ok',
      summary: resultSummary(output),
      output: cut(output, RESULT_TEXT_CHARS),
    });
  }

  #closeAssistant(): void {
    const open = this.#assistant;
    this.#assistant = undefined;
    // Reasoning alone (the agent was stopped before it answered) is no message a provider takes.
    if (open === undefined || open.blocks.every((block) => block.type === 'thinking')) return;
    this.#push({ role: 'assistant', content: open.blocks }, open.phases);
    const text = open.blocks.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n');
    const run = this.runs.at(-1);
    if (run !== undefined && text !== '' && !this.#quiet) run.output = text;
  }

  /** The results of the last assistant message as one user message; a call without one gets one. */
  #closeUser(): void {
    for (const call of this.#calls.values())
      this.#addResult(
        call,
        `No result of this call is in the ${this.#agent} transcript: it was interrupted, or ${this.#agent} stopped before it ended.`,
        true,
      );
    this.#calls.clear();
    if (this.#results.length === 0 && this.#notes.length === 0) return;
    // Tool results first: Anthropic wants them at the start of the message.
    this.#push({ role: 'user', content: [...this.#results, ...this.#notes] }, this.#resultPhases);
    this.#results = [];
    this.#notes = [];
    this.#resultPhases = [];
  }

  #closeAll(): void {
    this.#closeAssistant();
    this.#closeUser();
  }

  /** The agent's id where both wire APIs take it, else one made from it; unique either way. */
  #toolCallId(original: string): string {
    const base = PORTABLE_ID.test(original)
      ? original
      : `imp_${createHash('sha256').update(original).digest('hex').slice(0, 24)}`;
    let id = base;
    for (let n = 2; this.#ids.has(id); n++) id = `${base.slice(0, 34)}_${n}`;
    this.#ids.add(id);
    return id;
  }
}

/** `text` cut to `limit` characters, saying how much more the original has. */
export function cut(text: string, limit: number): string {
  if (text.length <= limit) return text;
  return `${text.slice(0, limit)}… (${text.length - limit} more characters in the original transcript)`;
}

function argumentText(args: unknown): string {
  return typeof args === 'string' ? args : JSON.stringify(args ?? {});
}

/** A short line for the user, as Santra's own calls have: the tool and its main argument. */
function callSummary(name: string, args: Record<string, unknown>): string {
  const main = ['path', 'command', 'pattern', 'url', 'query', 'agentId']
    .map((key) => args[key])
    .find((value): value is string => typeof value === 'string');
  const line = main === undefined ? name : `${name} ${main.split('\n')[0] ?? ''}`;
  return line.length > 100 ? `${line.slice(0, 99)}…` : line;
}

function resultSummary(output: string): string {
  const lines = output === '' ? 0 : output.split('\n').length;
  return `${lines} line${lines === 1 ? '' : 's'}`;
}
