/**
 * The transcript as a pure reducer: phases and the client's own events in, finished entries out.
 *
 * `step(state, event, out)` never changes `state`; it returns the next state and appends every
 * entry the event finished to `out`. Finished entries are final: the view prints them once into
 * the terminal's scrollback (Ink's <Static>) and never draws them again, so the state keeps only
 * what is still live — each agent's unfinished text, the tool calls still running, the latest
 * status line. Every step costs O(1) in the length of the transcript (the maps hold the agents
 * and tool calls of the current run only; text is scanned once, see markdown-blocks.ts).
 */
import type { AnswerStop, BudgetStatus, Phase, RunStatus, Usage } from '#protocol';
import { EMPTY_STREAM, endMarkdown, feedMarkdown, type MarkdownStream } from './markdown-blocks.ts';

export type ToolStatus = 'ok' | 'error' | 'rejected' | 'cancelled';

/** Tools whose argument is the agent's answer (shown as the answer when the run completes). */
const ANSWER_TOOLS: ReadonlySet<string> = new Set(['task_completed', 'set_output']);

/** Tool outputs kept for Ctrl+O: the latest ones; older ones are forgotten. */
export const KEPT_OUTPUTS = 50;

/** The most rows of a paragraph being written in one entry. */
export const ROWS_PER_ENTRY = 100;
export type Tone = 'info' | 'warning' | 'error';

/** A finished entry of the transcript. `depth` is the agent's depth in the agent tree (0: root). */
export type Entry =
  | { kind: 'user'; id: number; text: string }
  | {
      kind: 'markdown';
      id: number;
      depth: number;
      text: string;
      /**
       * Finished rows of a paragraph still being written (markdown-blocks.ts, plainRows): plain
       * text, one row a line, printed as it is; the paragraph goes on in the next entry.
       */
      rows?: boolean;
      /** With `rows`: the text the rows were cut from, so a resized terminal can wrap it again. */
      source?: string;
    }
  | { kind: 'thinking'; id: number; depth: number; text: string }
  | {
      kind: 'tool';
      id: number;
      depth: number;
      agentId: string;
      toolName: string;
      summary: string;
      status: ToolStatus;
      result: string;
      /** Whether it had an output (or an allowed diff) the user can print whole (Ctrl+O). */
      hasOutput: boolean;
    }
  | { kind: 'section'; id: number; depth: number; agentId: string; title: string }
  | { kind: 'agent_done'; id: number; depth: number; agentId: string; status: RunStatus }
  | { kind: 'status'; id: number; depth: number; text: string }
  | { kind: 'error'; id: number; depth: number; text: string }
  | {
      kind: 'run_end';
      id: number;
      status: RunStatus;
      /** Why the answer stopped, when it is not whole: cut off at the output limit, or refused. */
      stopReason?: AnswerStop;
      usage: Usage | undefined;
      costUsd: number | undefined;
      seconds: number;
    }
  | { kind: 'note'; id: number; text: string; tone: Tone }
  | { kind: 'block'; id: number; title: string; lines: readonly string[]; diff: boolean };

/** An entry before it has its id. */
export type NewEntry = Entry extends infer E ? (E extends Entry ? Omit<E, 'id'> : never) : never;

export interface AgentLive {
  id: string;
  depth: number;
  role: string | undefined;
  markdown: MarkdownStream;
  thinking: string;
  /**
   * What the agent wrote since its last tool call, whole (the markdown stream keeps only the
   * unfinished block): its final answer, if it gave it as text.
   */
  said: string;
}

export interface RunningTool {
  toolCallId: string;
  agentId: string;
  depth: number;
  toolName: string;
  summary: string;
  /** What the user typed when rejecting it, to show with its row. */
  feedback?: string;
  /** The diff of the change the user allowed, to print with its output (Ctrl+O). */
  diff?: readonly string[];
}

/** What a tool call gave the model, for Ctrl+O: its output, and the diff of an allowed change. */
export interface ToolOutput {
  title: string;
  text: string;
  diff?: readonly string[];
}

export interface Transcript {
  nextId: number;
  agents: ReadonlyMap<string, AgentLive>;
  tools: ReadonlyMap<string, RunningTool>;
  /** The latest info status line of the run, shown beside the spinner. */
  status: string | undefined;
  /**
   * The latest warning that later ones replace (a wait for the provider, its retries: a status
   * with a `key`), shown in place of the status until the model answers.
   */
  notice: string | undefined;
  /** A prompt is running; `startedAt` is when (ms, the caller's clock). */
  running: boolean;
  startedAt: number;
  /** The latest tool outputs (KEPT_OUTPUTS at most), oldest first, for Ctrl+O. */
  outputs: readonly ToolOutput[];
  /** How many outputs there have been: tells Ctrl+O that a new one came. */
  outputCount: number;
  /**
   * The warnings printed in this session: the same warning on every run (a model Santra does not
   * list, a skipped agent file) is printed once.
   */
  warned: ReadonlySet<string>;
  /** Columns of the terminal, once known: paragraphs being written are then printed row by row. */
  width: number | undefined;
  /** What the running run has spent so far, from its latest `usage` phase (§7.6). */
  spend: LiveSpend | undefined;
}

/** The spend a `usage` phase reports: the session's cost as it grows, cache hits, the budget. */
export interface LiveSpend {
  runCostUsd: number;
  sessionCostUsd: number;
  cacheHitRatio?: number;
  budget?: BudgetStatus;
  /** The model of the latest call, when not the run's: a fallback model answers (§8.4). */
  model?: string;
}

/**
 * The entries printed so far, to print again at another width (a resized terminal): the rows of a
 * paragraph cut at the old width go back into one Markdown entry with the rest of their paragraph,
 * to be wrapped at the new one. Everything else is width-free and printed as it was.
 */
export function reflowEntries(entries: readonly Entry[]): Entry[] {
  const out: Entry[] = [];
  let pending: { depth: number; text: string; id: number } | undefined;
  for (const entry of entries) {
    if (entry.kind === 'markdown' && entry.rows === true && entry.source !== undefined) {
      if (pending !== undefined && pending.depth !== entry.depth) out.push(paragraph(pending));
      pending =
        pending !== undefined && pending.depth === entry.depth
          ? { ...pending, text: pending.text + entry.source }
          : { depth: entry.depth, text: entry.source, id: entry.id };
      continue;
    }
    if (
      pending !== undefined &&
      entry.kind === 'markdown' &&
      entry.rows !== true &&
      entry.depth === pending.depth
    ) {
      out.push({ ...entry, text: pending.text + entry.text });
      pending = undefined;
      continue;
    }
    if (pending !== undefined) {
      out.push(paragraph(pending));
      pending = undefined;
    }
    out.push(entry);
  }
  if (pending !== undefined) out.push(paragraph(pending));
  return out;
}

function paragraph(pending: { depth: number; text: string; id: number }): Entry {
  return { kind: 'markdown', id: pending.id, depth: pending.depth, text: pending.text };
}

/** How a run ended, in the words of its closing line: `done`, or why the answer is not whole. */
export function runEnd(status: RunStatus, stopReason: AnswerStop | undefined): string {
  if (status !== 'completed') return status;
  if (stopReason === 'max_tokens') return 'cut off at the output limit';
  if (stopReason === 'refusal') return 'declined';
  return 'done';
}

export type TranscriptEvent =
  | { type: 'phase'; phase: Phase }
  | { type: 'user'; text: string }
  | { type: 'run_start'; at: number }
  | {
      type: 'run_end';
      at: number;
      status: RunStatus;
      stopReason?: AnswerStop;
      usage?: Usage;
      costUsd?: number;
    }
  | { type: 'note'; text: string; tone?: Tone }
  | { type: 'entry'; entry: NewEntry }
  | { type: 'width'; columns: number }
  /** The user answered an approval of a running tool call: a rejection's feedback, an allowed diff. */
  | { type: 'approval'; toolCallId: string; feedback?: string; diff?: readonly string[] }
  /** A new session (/clear): its warnings are news again. */
  | { type: 'new_session' };

export const EMPTY_TRANSCRIPT: Transcript = {
  nextId: 1,
  agents: new Map(),
  tools: new Map(),
  status: undefined,
  notice: undefined,
  running: false,
  startedAt: 0,
  outputs: [],
  outputCount: 0,
  warned: new Set(),
  width: undefined,
  spend: undefined,
};

/** Applies one event; appends the entries it finished to `out`. */
export function step(state: Transcript, event: TranscriptEvent, out: Entry[]): Transcript {
  const emitter = new Emitter(state.nextId, out);
  const next = apply(state, event, emitter);
  return emitter.id === next.nextId ? next : { ...next, nextId: emitter.id };
}

/** Applies events in order; returns the state and every entry they finished. */
export function stepAll(
  state: Transcript,
  events: readonly TranscriptEvent[],
): { state: Transcript; entries: Entry[] } {
  const entries: Entry[] = [];
  let current = state;
  for (const event of events) current = step(current, event, entries);
  return { state: current, entries };
}

class Emitter {
  id: number;
  readonly #out: Entry[];
  constructor(id: number, out: Entry[]) {
    this.id = id;
    this.#out = out;
  }
  emit(entry: NewEntry): void {
    this.#out.push({ ...entry, id: this.id++ });
  }
}

function apply(state: Transcript, event: TranscriptEvent, out: Emitter): Transcript {
  switch (event.type) {
    case 'phase':
      return applyPhase(state, event.phase, out);
    case 'user':
      out.emit({ kind: 'user', text: event.text });
      return state;
    case 'run_start':
      return {
        ...state,
        running: true,
        startedAt: event.at,
        status: undefined,
        notice: undefined,
        spend: undefined,
      };
    case 'run_end': {
      for (const agent of state.agents.values()) flushAgent(agent, out);
      for (const tool of state.tools.values()) {
        out.emit({
          kind: 'tool',
          depth: tool.depth,
          agentId: tool.agentId,
          toolName: tool.toolName,
          summary: tool.summary,
          status: 'cancelled',
          result: 'stopped with the run',
          hasOutput: false,
        });
      }
      out.emit({
        kind: 'run_end',
        status: event.status,
        ...(event.stopReason === undefined || event.stopReason === 'end_turn'
          ? {}
          : { stopReason: event.stopReason }),
        usage: event.usage,
        costUsd: event.costUsd,
        seconds: state.running ? Math.max(0, (event.at - state.startedAt) / 1000) : 0,
      });
      return { ...state, agents: new Map(), tools: new Map(), status: undefined, running: false };
    }
    case 'note':
      out.emit({ kind: 'note', text: event.text, tone: event.tone ?? 'info' });
      return state;
    case 'entry':
      out.emit(event.entry);
      return state;
    case 'width':
      return event.columns === state.width ? state : { ...state, width: event.columns };
    case 'approval': {
      const tool = state.tools.get(event.toolCallId);
      if (tool === undefined) return state;
      const tools = new Map(state.tools);
      tools.set(event.toolCallId, {
        ...tool,
        ...(event.feedback === undefined ? {} : { feedback: event.feedback }),
        ...(event.diff === undefined ? {} : { diff: event.diff }),
      });
      return { ...state, tools };
    }
    case 'new_session':
      return state.warned.size === 0 ? state : { ...state, warned: new Set() };
    default: {
      const exhaustive: never = event;
      throw new Error(`unknown transcript event ${JSON.stringify(exhaustive)}`);
    }
  }
}

function applyPhase(state: Transcript, phase: Phase, out: Emitter): Transcript {
  switch (phase.type) {
    case 'text': {
      const agent = agentOf(state, phase);
      // Rows of a paragraph are printed as they come only while no other agent is writing, so
      // agents writing at once do not cut each other's paragraphs.
      const alone = [...state.agents.values()].every(
        (other) => other.id === agent.id || other.markdown.text === '',
      );
      const rowWidth = state.width === undefined || !alone ? undefined : state.width - agent.depth * 2;
      const fed = feedMarkdown(agent.markdown, phase.text, rowWidth);
      flushThinking(agent, out);
      for (const text of fed.blocks) out.emit({ kind: 'markdown', depth: agent.depth, text });
      // A large delta (a server sending a backlog at once) gives many rows: entries of at most
      // ROWS_PER_ENTRY, so the view can print them over several frames.
      for (let at = 0; at < fed.rows.length; at += ROWS_PER_ENTRY) {
        const rows = fed.rows.slice(at, at + ROWS_PER_ENTRY);
        const source = at === 0 ? fed.rowsSource : '';
        out.emit({ kind: 'markdown', depth: agent.depth, text: rows.join('\n'), rows: true, source });
      }
      return withAgent(answered(state), {
        ...agent,
        thinking: '',
        markdown: fed.stream,
        said: agent.said + phase.text,
      });
    }
    case 'thinking': {
      const agent = agentOf(state, phase);
      return withAgent(answered(state), { ...agent, thinking: agent.thinking + phase.text });
    }
    case 'tool_call': {
      const agent = agentOf(state, phase);
      flushAgent(agent, out);
      const tools = new Map(state.tools);
      tools.set(phase.toolCallId, {
        toolCallId: phase.toolCallId,
        agentId: phase.agentId,
        depth: agent.depth,
        toolName: phase.toolName,
        // The run's answer given as a tool's argument is shown whole as the answer at the end: its
        // row need not repeat the start of it.
        summary:
          phase.parentAgentId === undefined && ANSWER_TOOLS.has(phase.toolName)
            ? phase.toolName
            : (phase.summary ?? phase.toolName),
      });
      return { ...withAgent(answered(state), cleared(agent)), tools };
    }
    case 'tool_result': {
      const running = state.tools.get(phase.toolCallId);
      const depth = running?.depth ?? agentOf(state, phase).depth;
      const output = phase.output ?? '';
      // An allowed diff is what was applied only if the tool then succeeded.
      const diff = phase.status === 'ok' ? running?.diff : undefined;
      const title = running?.summary ?? phase.toolName;
      out.emit({
        kind: 'tool',
        depth,
        agentId: phase.agentId,
        toolName: phase.toolName,
        summary: title,
        status: phase.status,
        result: phase.summary,
        hasOutput: output !== '' || diff !== undefined,
      });
      if (running?.feedback !== undefined && phase.status === 'rejected') {
        out.emit({
          kind: 'note',
          text: `${'  '.repeat(depth + 1)}↳ your feedback: ${running.feedback}`,
          tone: 'warning',
        });
      }
      let tools = state.tools;
      if (running !== undefined) {
        const rest = new Map(tools);
        rest.delete(phase.toolCallId);
        tools = rest;
      }
      if (output === '' && diff === undefined) return { ...state, tools };
      const kept: ToolOutput = { title, text: output, ...(diff === undefined ? {} : { diff }) };
      return {
        ...state,
        tools,
        outputs: [...state.outputs.slice(-(KEPT_OUTPUTS - 1)), kept],
        outputCount: state.outputCount + 1,
      };
    }
    case 'section': {
      const agent = agentOf(state, phase);
      out.emit({ kind: 'section', depth: agent.depth, agentId: phase.agentId, title: phase.title });
      return withAgent(state, agent);
    }
    case 'complete': {
      const agent = state.agents.get(phase.agentId);
      if (agent !== undefined) flushAgent(agent, out);
      // The run's answer is shown as the answer whichever way it came: an agent that finished with
      // task_completed or set_output gave it as a tool's argument, not as text.
      if (phase.parentAgentId === undefined && !shownAsText(agent?.said ?? '', phase.output))
        out.emit({ kind: 'markdown', depth: 0, text: phase.output.trim() });
      if (phase.parentAgentId !== undefined) {
        out.emit({
          kind: 'agent_done',
          depth: agent?.depth ?? 1,
          agentId: phase.agentId,
          status: phase.status,
        });
      }
      if (agent === undefined) return state;
      const agents = new Map(state.agents);
      agents.delete(phase.agentId);
      return { ...state, agents };
    }
    case 'error': {
      const agent = agentOf(state, phase);
      flushAgent(agent, out);
      out.emit({ kind: 'error', depth: agent.depth, text: phase.message });
      return withAgent(state, cleared(agent));
    }
    case 'usage':
      return {
        ...state,
        spend: {
          runCostUsd: phase.runCostUsd,
          sessionCostUsd: phase.sessionCostUsd,
          ...(phase.cacheHitRatio === undefined ? {} : { cacheHitRatio: phase.cacheHitRatio }),
          ...(phase.budget === undefined ? {} : { budget: phase.budget }),
          ...(phase.model === undefined ? {} : { model: phase.model }),
        },
      };
    case 'status': {
      // One line that changes, not a line per retry.
      if (phase.level === 'warning' && phase.key !== undefined) return { ...state, notice: phase.text };
      if (phase.level === 'warning') {
        // The same warning at every run is news once.
        if (state.warned.has(phase.text)) return state;
        out.emit({ kind: 'status', depth: agentOf(state, phase).depth, text: phase.text });
        return { ...state, warned: new Set(state.warned).add(phase.text) };
      }
      // Where the router sent the prompt, and why, and what memory kept from the last run: said
      // once, under the prompt, not kept beside the spinner (where the next status would hide it).
      if (phase.parentAgentId === undefined && SAID_ONCE.some((pattern) => pattern.test(phase.text))) {
        out.emit({ kind: 'note', text: phase.text, tone: 'info' });
        return state;
      }
      return { ...state, status: phase.text };
    }
    case 'event':
      // A card of its own: the sender's words, marked as theirs, never as the agent's.
      out.emit({
        kind: 'note',
        text: `✉ event from ${phase.source} (${EVENT_DELIVERY[phase.delivery]}):\n${phase.text.replace(/^/gm, '  │ ')}`,
        tone: 'info',
      });
      return state;
    default: {
      const exhaustive: never = phase;
      throw new Error(`unknown phase ${JSON.stringify(exhaustive)}`);
    }
  }
}

/**
 * The router's status line (server: agent/run-prompt.ts), e.g. "Route: agent_task (mentions a
 * file (main.ts))". The protocol gives it no key of its own, so it is known by its words.
 */
/** How an event card says what became of the event (§10.14). */
const EVENT_DELIVERY: Record<'queued' | 'started' | 'saved', string> = {
  queued: 'the model reads it at its next turn, as untrusted data',
  started: 'it starts a turn, as untrusted data',
  saved: 'the model reads it with your next message, as untrusted data',
};

const SAID_ONCE = [/^Route: [a-z_]+ \(/, /^Memory: remembered in /];

/** The note the server ends an answer cut for the wire with (server: agent/wire-text.ts). */
const CUT_FOR_WIRE = /\n\n\[… \d+ more characters not sent \(\d+ in all\); [^\]]*\]$/;

/**
 * Whether the text an agent wrote last already shows its answer: the answer is its end, or — for
 * an answer too long for one message, cut with a note — its start.
 */
function shownAsText(said: string, output: string): boolean {
  const answer = output.trim();
  if (answer === '' || said.trimEnd().endsWith(answer)) return true;
  const cut = CUT_FOR_WIRE.exec(answer);
  return cut !== null && said.trimStart().startsWith(answer.slice(0, cut.index).trimStart());
}

/** The model answered: a notice about waiting for it, or retrying it, is over. */
function answered(state: Transcript): Transcript {
  return state.notice === undefined ? state : { ...state, notice: undefined };
}

/** The live state of the phase's agent; a new one (not yet in the map) the first time. */
function agentOf(state: Transcript, phase: Phase): AgentLive {
  const known = state.agents.get(phase.agentId);
  if (known !== undefined) return known;
  const parent = phase.parentAgentId === undefined ? undefined : state.agents.get(phase.parentAgentId);
  const depth = phase.parentAgentId === undefined ? 0 : (parent?.depth ?? 0) + 1;
  return {
    id: phase.agentId,
    depth,
    role: phase.agentRole,
    markdown: EMPTY_STREAM,
    thinking: '',
    said: '',
  };
}

function withAgent(state: Transcript, agent: AgentLive): Transcript {
  const agents = new Map(state.agents);
  agents.set(agent.id, agent);
  return { ...state, agents };
}

function cleared(agent: AgentLive): AgentLive {
  return { ...agent, markdown: EMPTY_STREAM, thinking: '', said: '' };
}

function flushThinking(agent: AgentLive, out: Emitter): void {
  if (agent.thinking.trim() !== '') out.emit({ kind: 'thinking', depth: agent.depth, text: agent.thinking });
}

/** Emits what the agent had not finished: its thinking and its last block of text. */
function flushAgent(agent: AgentLive, out: Emitter): void {
  flushThinking(agent, out);
  const last = endMarkdown(agent.markdown);
  if (last !== undefined) out.emit({ kind: 'markdown', depth: agent.depth, text: last });
}
