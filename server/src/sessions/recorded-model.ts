/**
 * The model, answered from a recording (`santra-server --replay FILE`; the TUI's player of a
 * recording is another thing, tui/src/ui/replay-*). A session file holds every model call's answer
 * (`model_output`); this stream answers the runtime's model calls from them instead of a
 * provider, so a run is executed again — tools, approvals, sub-agents and all — with no key and no
 * network. What makes it deterministic is that the model is: everything else (the tools, the
 * workspace) runs for real, and the conversation they produce is checked against the recording
 * before each answer.
 *
 * Calls are matched by who asks (ModelRequest.caller): the n-th run of the replay is the n-th run
 * of the recording (in the order of their prompts), and within it each agent's k-th model call is
 * its recorded turn k. Agents are named deterministically (`reader-2`), so parallel sub-agents
 * find their own answers whatever order they ask in.
 *
 * A divergence — a call the recording has no answer for, a different model, or a conversation
 * that is not the recorded one — ends that call with a `replay_divergence` error that says where
 * (run, agent, turn) and what differs; the run then ends with status error, as any provider
 * failure ends it. Contract of the stream: as providers/stream.ts says (never throws, exactly one
 * final event).
 */
import { readFile } from 'node:fs/promises';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import {
  type AssistantBlock,
  type ChatMessage,
  isEnvironmentNote,
  type UserBlock,
} from '../providers/messages.ts';
import {
  EMPTY_USAGE,
  type ModelRequest,
  type ProviderFailure,
  type StreamEvent,
  type StreamFn,
} from '../providers/stream.ts';
import { parseJournal } from './journal.ts';
import { asRecord, COMPACTION_AGENT, type SessionRecord } from './records.ts';

type ModelOutput = Extract<SessionRecord, { type: 'model_output' }>;

/** One run of the recording: its prompt and every model call's answer, per agent in turn order. */
export interface RecordedRun {
  runId: string;
  text: string;
  /** The model it ran on, as `provider/model`. */
  model: string;
  agent?: string;
  mode?: string;
  /** The agent that answered the prompt: the first to call the model. */
  rootAgentId?: string;
  outputs: Map<string, ModelOutput[]>;
  /**
   * The root agent's conversation at each of its turns: the first `length` messages saved before
   * that answer (the array only grows until a replacement starts a new one).
   */
  rootInputs: Map<number, { messages: readonly ChatMessage[]; length: number }>;
}

export interface Recording {
  sessionId?: string;
  /** The workspace it was recorded in: its path in tool output is not a divergence. */
  workspaceRoot?: string;
  runs: RecordedRun[];
  /** The summaries of its compactions, in order (agent `compaction`, outside any run). */
  compactions: ModelOutput[];
  /** Every model its runs used, as `provider/model`, first used first. */
  models: string[];
  /** Model outputs in all. */
  outputs: number;
}

/**
 * A recording from a session's records. A `model_output` of a run without a prompt is ignored;
 * turns are ordered by their number, whatever order they were saved in.
 */
export function recordingOf(records: readonly SessionRecord[]): Recording {
  const runs: RecordedRun[] = [];
  const byId = new Map<string, RecordedRun>();
  let header: Extract<SessionRecord, { type: 'session' }> | undefined;
  // The session's conversation as it grows; a replacement starts a new array, so the arrays the
  // snapshots hold never change below the length they were taken at.
  let conversation: ChatMessage[] = [];
  let outputs = 0;
  const compactions: ModelOutput[] = [];
  for (const record of records) {
    switch (record.type) {
      case 'session':
        header ??= record;
        break;
      case 'prompt': {
        const run: RecordedRun = {
          runId: record.runId,
          text: record.text,
          model: record.model,
          ...(record.agent === undefined ? {} : { agent: record.agent }),
          ...(record.mode === undefined ? {} : { mode: record.mode }),
          outputs: new Map(),
          rootInputs: new Map(),
        };
        if (!byId.has(run.runId)) runs.push(run);
        byId.set(run.runId, run);
        break;
      }
      case 'message':
        conversation.push(record.message);
        break;
      case 'messages_replaced':
        conversation = [...record.messages];
        break;
      case 'rewind':
        conversation = [...record.messages];
        break;
      case 'compaction':
        conversation = [record.summary, ...record.kept];
        break;
      case 'model_output': {
        if (record.agentId === COMPACTION_AGENT) {
          compactions.push(record);
          outputs++;
          break;
        }
        const run = byId.get(record.runId);
        if (run === undefined) break;
        outputs++;
        run.rootAgentId ??= record.agentId;
        const list = run.outputs.get(record.agentId) ?? [];
        list.push(record);
        run.outputs.set(record.agentId, list);
        if (record.agentId === run.rootAgentId && record.inputMessages <= conversation.length)
          run.rootInputs.set(record.turn, { messages: conversation, length: record.inputMessages });
        break;
      }
      case 'phase':
      case 'approval':
      case 'ask':
      case 'file_change':
      case 'undo':
      case 'model':
      case 'name':
      case 'spend':
      case 'run_end':
        break;
      default: {
        const exhaustive: never = record;
        throw new Error(`unknown record ${JSON.stringify(exhaustive)}`);
      }
    }
  }
  for (const run of runs) for (const list of run.outputs.values()) list.sort((a, b) => a.turn - b.turn);
  return {
    ...(header === undefined ? {} : { sessionId: header.sessionId, workspaceRoot: header.workspaceRoot }),
    runs,
    compactions,
    models: [...new Set(runs.map((run) => run.model))],
    outputs,
  };
}

/**
 * Reads a recording: a session file (JSON Lines), or what `session/export` wrote as JSON (an
 * array of records). Resolves with why not when the file cannot be read or answers no model call.
 */
export async function readRecording(
  path: string,
): Promise<{ recording: Recording; warnings: string[] } | { error: string }> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'it is a directory'
          : error instanceof Error
            ? error.message
            : String(error);
    return { error: `cannot read ${path}: ${why}` };
  }
  const parsed = text.trimStart().startsWith('[') ? exportedRecords(text, path) : parseJournal(text, path);
  const recording = recordingOf(parsed.records);
  if (recording.outputs === 0) {
    return {
      error: `${path} holds no model outputs to replay (${plural(parsed.records.length, 'record')}${parsed.warnings.length === 0 ? '' : `, ${parsed.warnings.length} damaged`}); a recording is a session file, from the sessions directory or session/export with format json`,
    };
  }
  return { recording, warnings: parsed.warnings };
}

function exportedRecords(text: string, name: string): { records: SessionRecord[]; warnings: string[] } {
  let values: unknown;
  try {
    values = JSON.parse(text);
  } catch {
    return { records: [], warnings: [`${name}: not valid JSON`] };
  }
  const records: SessionRecord[] = [];
  const warnings: string[] = [];
  for (const [index, value] of (Array.isArray(values) ? values : []).entries()) {
    const record = asRecord(value);
    if (typeof record === 'string') warnings.push(`${name}: record ${index + 1}: skipped ${record}`);
    else records.push(record);
  }
  return { records, warnings };
}

export interface ReplayOptions {
  /** The workspace the replay runs in, once known: its path stands for the recorded one. */
  workspaceRoot?: () => string | undefined;
}

/** Text is re-streamed in pieces of this size: as a provider would, in far fewer events. */
const CHUNK_CHARS = 16 * 1024;

/** A stream function that answers every model call from `recording` (see the file comment). */
export function recordedModelStream(recording: Recording, options: ReplayOptions = {}): StreamFn {
  /** Replay runs in the order they first called the model, mapped to the recording's runs. */
  const runIndex = new Map<string, number>();
  /** Summaries answered so far (compactions happen outside runs, in the recorded order). */
  let compactionsUsed = 0;
  /** The root conversation checked last: equal to the recording up to its length. */
  let verified: { messages: readonly ChatMessage[]; length: number } | undefined;
  return async function* (_endpoint, request) {
    // One macrotask per call: a replay runs far faster than real time, but lets I/O and
    // cancellation in between model calls.
    await yieldToEventLoop();
    if (request.signal.aborted) {
      yield { type: 'error', failure: cancelled() };
      return;
    }
    const answer = lookUp(request);
    if ('divergence' in answer) {
      yield { type: 'error', failure: divergence(answer.divergence) };
      return;
    }
    yield* restream(answer.output, request.signal);
  };

  function lookUp(request: ModelRequest): { output: ModelOutput } | { divergence: string } {
    const caller = request.caller;
    const total = recording.runs.length;
    if (caller?.agentId === COMPACTION_AGENT) {
      const output = recording.compactions[compactionsUsed++];
      return output === undefined
        ? {
            divergence: `compaction ${compactionsUsed}: the recording has ${plural(recording.compactions.length, 'compaction')}; this is one more`,
          }
        : { output };
    }
    if (caller === undefined)
      return { divergence: 'a model call that is no agent turn (the recording holds agent turns only)' };
    let index = runIndex.get(caller.runId);
    if (index === undefined) {
      index = runIndex.size;
      runIndex.set(caller.runId, index);
    }
    if (index >= total) {
      return {
        divergence: `run ${index + 1}, agent ${caller.agentId}, turn ${caller.turn}: the recording has ${plural(total, 'run')}; this prompt is one more than it holds`,
      };
    }
    const run = recording.runs[index] as RecordedRun;
    const where = `run ${index + 1} of ${total}, agent ${caller.agentId}, turn ${caller.turn}`;
    const asked = `${request.model.provider}/${request.model.id}`;
    if (asked !== run.model)
      return { divergence: `${where}: the recording ran on ${run.model}, this call asks ${asked}` };
    const turns = run.outputs.get(caller.agentId);
    if (turns === undefined) {
      const agents = [...run.outputs.keys()].join(', ');
      return {
        divergence: `${where}: the agent ${caller.agentId} made no model call in this run of the recording (its agents: ${agents === '' ? 'none' : agents})`,
      };
    }
    const output = turns.find((candidate) => candidate.turn === caller.turn);
    if (output === undefined) {
      return {
        divergence: `${where}: the recording has ${plural(turns.length, 'model call')} of ${caller.agentId} in this run; this is one more (the recorded run had ended here)`,
      };
    }
    if (request.messages.length !== output.inputMessages) {
      return {
        divergence: `${where}: the recording sent ${plural(output.inputMessages, 'message')}, this call sends ${request.messages.length}`,
      };
    }
    const recorded = caller.agentId === run.rootAgentId ? run.rootInputs.get(caller.turn) : undefined;
    if (recorded !== undefined) {
      // The root's conversation only grows between its calls: what was checked need not be again.
      const from = verified?.messages === recorded.messages ? Math.min(verified.length, recorded.length) : 0;
      const difference = firstDifference(
        recorded.messages,
        request.messages,
        { recorded: recording.workspaceRoot, live: options.workspaceRoot?.() },
        { from, length: recorded.length },
      );
      if (difference !== undefined) return { divergence: `${where}: ${difference}` };
      verified = recorded;
    }
    return { output };
  }
}

function* restream(output: ModelOutput, signal: AbortSignal): Generator<StreamEvent> {
  const stopped = () => signal.aborted;
  if (output.failure !== undefined) {
    for (const text of chunks(output.text ?? '')) yield { type: 'text_delta', text };
    yield { type: 'error', failure: stopped() ? cancelled() : output.failure };
    return;
  }
  const content = output.content ?? [];
  for (const block of content) {
    if (stopped()) {
      yield { type: 'error', failure: cancelled() };
      return;
    }
    switch (block.type) {
      case 'text':
        for (const text of chunks(block.text)) yield { type: 'text_delta', text };
        break;
      case 'thinking':
        for (const text of chunks(block.text)) yield { type: 'thinking_delta', text };
        break;
      case 'tool_call':
        yield { type: 'tool_call_delta', id: block.id, name: block.name, argsDelta: block.argsText };
        break;
      default: {
        const exhaustive: never = block;
        throw new Error(`unknown block ${JSON.stringify(exhaustive)}`);
      }
    }
  }
  yield {
    type: 'done',
    content: structuredClone(content),
    stopReason: output.stopReason ?? 'end_turn',
    ...(output.stopDetail === undefined ? {} : { stopDetail: output.stopDetail }),
    usage: output.usage ?? EMPTY_USAGE,
  };
}

function* chunks(text: string): Generator<string> {
  for (let at = 0; at < text.length; at += CHUNK_CHARS) yield text.slice(at, at + CHUNK_CHARS);
}

function divergence(where: string): ProviderFailure {
  return {
    kind: 'replay_divergence',
    provider: 'replay',
    retryable: false,
    message: `Replay diverged at ${where}. The recording cannot answer this call, so the re-execution stops here.`,
  };
}

function cancelled(): ProviderFailure {
  return { kind: 'cancelled', provider: 'replay', retryable: false, message: 'replay: request cancelled.' };
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** The workspace paths of both sides, each standing for the other in what is compared. */
interface Roots {
  recorded: string | undefined;
  live: string | undefined;
}

/**
 * Where the conversation a call sends first differs from the first `range.length` recorded
 * messages, in words, looking from `range.from`; undefined when they are the same. What cannot
 * repeat is not compared: the workspace's path, times a command took, timestamps, and the notes on
 * the day and directory a prompt was sent from.
 */
export function firstDifference(
  recorded: readonly ChatMessage[],
  asked: readonly ChatMessage[],
  roots: Roots,
  range: { from?: number; length?: number } = {},
): string | undefined {
  const length = range.length ?? recorded.length;
  for (let index = range.from ?? 0; index < Math.max(length, asked.length); index++) {
    const was = index < length ? recorded[index] : undefined;
    const now = asked[index];
    const at = `message ${index + 1}`;
    if (was === undefined || now === undefined)
      return `the recording sent ${plural(length, 'message')}, this call sends ${asked.length}`;
    if (was.role !== now.role)
      return `${at}: the recording has a ${was.role} message, this call a ${now.role} one`;
    const blocks = comparedBlocks(was);
    const nowBlocks = comparedBlocks(now);
    if (blocks.length !== nowBlocks.length)
      return `${at} (${was.role}): the recording has ${plural(blocks.length, 'block')}, this call ${nowBlocks.length}`;
    for (let b = 0; b < blocks.length; b++) {
      const difference = blockDifference(
        blocks[b] as AssistantBlock | UserBlock,
        nowBlocks[b] as AssistantBlock | UserBlock,
        roots,
      );
      if (difference !== undefined) return `${at} (${difference}`;
    }
  }
  return undefined;
}

/**
 * The blocks of a message that a replay compares: all but the note on when and from where the
 * user wrote (another day, another directory may send another, or none).
 */
function comparedBlocks(message: ChatMessage): ReadonlyArray<AssistantBlock | UserBlock> {
  const blocks: ReadonlyArray<AssistantBlock | UserBlock> = message.content;
  return blocks.filter((block) => block.type !== 'text' || !isEnvironmentNote(block.text));
}

function blockDifference(
  was: AssistantBlock | UserBlock,
  now: AssistantBlock | UserBlock,
  roots: Roots,
): string | undefined {
  if (was.type !== now.type)
    return `${was.type}): the recording has a ${was.type} block, this call a ${now.type} one`;
  const texts = (label: string, a: string, b: string) => {
    const recordedText = comparable(a, roots.recorded);
    const askedText = comparable(b, roots.live);
    return recordedText === askedText ? undefined : `${label}): ${contrast(recordedText, askedText)}`;
  };
  switch (was.type) {
    case 'text':
      return texts('text', was.text, (now as typeof was).text);
    case 'thinking':
      return texts('thinking', was.text, (now as typeof was).text);
    case 'tool_call': {
      const other = now as typeof was;
      if (was.name !== other.name)
        return `tool call): the recording called ${was.name}, this call ${other.name}`;
      return texts(`${was.name} call arguments`, was.argsText, other.argsText);
    }
    case 'tool_result': {
      const other = now as typeof was;
      const label = `result of ${was.toolName} call ${was.toolCallId}`;
      if (was.isError !== other.isError)
        return `${label}): the recorded call ${was.isError ? 'failed' : 'succeeded'}, this one ${other.isError ? 'failed' : 'succeeded'}`;
      return texts(label, was.output, other.output);
    }
    default: {
      const exhaustive: never = was;
      throw new Error(`unknown block ${JSON.stringify(exhaustive)}`);
    }
  }
}

const DURATION = /\b\d+(?:\.\d+)? ?(?:ms|s)\b/g;
const TIMESTAMP = /\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)?/g;

function comparable(text: string, root: string | undefined): string {
  const placed = root === undefined || root === '' ? text : text.replaceAll(root, '<workspace>');
  return placed.replace(TIMESTAMP, '<time>').replace(DURATION, '<duration>');
}

/** The two texts around where they first differ, quoted. */
function contrast(recorded: string, asked: string): string {
  let at = 0;
  while (at < recorded.length && at < asked.length && recorded[at] === asked[at]) at++;
  const start = Math.max(0, at - 20);
  const excerpt = (text: string) => {
    const piece = text.slice(start, at + 40);
    const cut = `${start > 0 ? '…' : ''}${piece}${at + 40 < text.length ? '…' : ''}`;
    return JSON.stringify(cut);
  };
  return `they differ at character ${at + 1}: the recording has ${excerpt(recorded)}, this call ${excerpt(asked)}`;
}
