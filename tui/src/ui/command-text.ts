/**
 * What the slash commands and Ctrl+O print and offer: /help, /models, /cost, /status, the model and
 * session pickers, a tool call's output, the user's prompts of a session's records (for
 * /resume), and an error's message. Pure text from protocol data; the controller carries the
 * commands out.
 */
import {
  type ModelEntry,
  type ResultOf,
  SessionRecord,
  type SessionInfo,
  type UndoneChange,
  type Usage,
} from '#protocol';
import { PrintError } from '../client/print-error.ts';
import type { NewEntry, ToolOutput } from './transcript.ts';
import type { PickerState, SetupState, UiState } from './ui-state.ts';
import { keyHelp, keyOf } from './keybindings.ts';
import { commandHelp, type SlashCommand } from './slash-commands.ts';

/** The context window of a model the catalog does not know: the server's to guess. */
export const UNKNOWN_CONTEXT = 0;

/**
 * The models grouped by provider, each provider with the model to offer first: the current model
 * when it is this provider's (named in the environment or the config, its key missing), else the
 * provider's default model, when known and listed.
 */
export function providersOf(
  models: readonly ModelEntry[],
  current = '',
  defaults: ReadonlyMap<string, string> = new Map(),
  keyless: ReadonlySet<string> = new Set(),
): SetupState['providers'] {
  const byProvider = new Map<string, ModelEntry[]>();
  for (const model of models)
    byProvider.set(model.provider, [...(byProvider.get(model.provider) ?? []), model]);
  // A provider Santra lists no models for (Ollama, LM Studio, vLLM: they serve their own) is still
  // offered, with its default model, whose context only the server learns.
  for (const [id, ref] of defaults)
    if (!byProvider.has(id))
      byProvider.set(id, [
        {
          ref,
          provider: id,
          id: ref.slice(id.length + 1),
          contextWindow: UNKNOWN_CONTEXT,
          configured: false,
        },
      ]);
  return [...byProvider].map(([id, entries]) => {
    const first = [current, defaults.get(id)].find((ref) => entries.some((model) => model.ref === ref));
    return {
      id,
      models: entries,
      needsKey: !keyless.has(id),
      ...(first === undefined ? {} : { defaultModel: first }),
    };
  });
}

export function helpText(commands: readonly SlashCommand[]): string {
  return ['Commands:', ...commandHelp(commands), ...keyHelp()].join('\n');
}

export function formatTokens(count: number): string {
  return count >= 1000 ? `${(count / 1000).toFixed(count >= 100_000 ? 0 : 1)}k` : String(count);
}

export function formatCost(usd: number): string {
  return `$${usd < 1 ? usd.toFixed(4) : usd.toFixed(2)}`;
}

/**
 * "97% cached": the share of the input tokens read from the provider's prompt cache (§7.6); empty
 * when the provider reported no cache reads or writes.
 */
export function cachedShare(usage: Usage): string {
  const cached = usage.cacheReadTokens + usage.cacheWriteTokens;
  const input = usage.inputTokens + cached;
  // A provider that reports no cache at all (most local servers) is not said to miss it.
  return cached === 0 ? '' : `${Math.floor((usage.cacheReadTokens / input) * 100)}% cached`;
}

/** What /cost prints: the session's tokens, cache hits and cost, and the last run's. */
export function costText(
  usage: Usage | undefined,
  cost: number,
  lastRun?: { usage: Usage; costUsd: number },
): string {
  if (usage === undefined) return 'Tokens: none yet; cost $0';
  const share = cachedShare(usage);
  const lines = [
    `Tokens:  ${usage.inputTokens} in, ${usage.outputTokens} out, ${usage.cacheReadTokens} cache read, ${usage.cacheWriteTokens} cache write; cost ${formatCost(cost)}${share === '' ? '' : `; ${share}`}`,
  ];
  if (lastRun !== undefined) {
    const input = lastRun.usage.inputTokens + lastRun.usage.cacheReadTokens + lastRun.usage.cacheWriteTokens;
    const runShare = cachedShare(lastRun.usage);
    lines.push(
      `Last run: ${input} in${runShare === '' ? '' : ` (${runShare})`}, ${lastRun.usage.outputTokens} out; cost ${formatCost(lastRun.costUsd)}`,
    );
  }
  return lines.join('\n');
}

export function price(model: ModelEntry): string {
  const context = `${formatTokens(model.contextWindow)} context`;
  if (model.inputUsdPerMTok === undefined || model.outputUsdPerMTok === undefined) return context;
  return `${context}, $${model.inputUsdPerMTok}/$${model.outputUsdPerMTok} per Mtok`;
}

export function modelsText(models: readonly ModelEntry[], current: string | undefined): string {
  const lines: string[] = ['Models (✓ has a key, * current):'];
  for (const { id, models: entries } of providersOf(models)) {
    lines.push(`  ${id}`);
    for (const model of entries) {
      const mark = model.ref === current ? '*' : model.configured ? '✓' : ' ';
      lines.push(`   ${mark} ${model.ref.padEnd(40)} ${price(model)}`);
    }
  }
  return lines.join('\n');
}

export function modelPicker(models: readonly ModelEntry[], current: string | undefined): PickerState {
  // Models with a key first, grouped by provider.
  const ordered = [...models.filter((m) => m.configured), ...models.filter((m) => !m.configured)];
  return {
    purpose: 'model',
    title: 'Choose the model',
    items: ordered.map((model) => ({
      label: `${model.ref === current ? '* ' : ''}${model.id}`,
      detail: `${price(model)}${model.configured ? '' : ' — no key'}`,
      value: model.ref,
      group: model.provider,
    })),
    ...(current === undefined ? {} : { selected: current }),
  };
}

function sessionLine(session: SessionInfo): string {
  const name = session.name === undefined ? '' : `[${session.name}] `;
  return `  ${session.sessionId}  ${session.updatedAt.slice(0, 16).replace('T', ' ')}  ${name}${session.title}`;
}

/** /sessions: the saved sessions, newest first. */
export function sessionsText(sessions: readonly SessionInfo[]): string {
  return sessions.length === 0
    ? 'No saved session yet.'
    : ['Sessions (/resume ID or NAME continues one):', ...sessions.map(sessionLine)].join('\n');
}

/** /agents: every agent with what it does, then the agent files that were skipped and why. */
export function agentsText({ agents, problems }: ResultOf<'agents/list'>): string {
  const lines = agents.map((agent) => `  ${agent.id.padEnd(14)} ${agent.description}`);
  for (const problem of problems) lines.push(`  ! ${problem.file}: ${problem.message}`);
  return ['Agents:', ...lines].join('\n');
}

export function sessionPicker(sessions: readonly SessionInfo[]): PickerState {
  return {
    purpose: 'resume',
    title: 'Resume a session',
    items: sessions.map((session) => ({
      label: session.name === undefined ? session.title : `[${session.name}] ${session.title}`,
      detail: `${session.updatedAt.slice(0, 16).replace('T', ' ')} · ${session.messageCount} messages`,
      value: session.sessionId,
    })),
  };
}

const SERVER_STATE: Record<UiState['connection'], string> = {
  starting: 'starting',
  setup: 'running, waiting for the setup',
  ready: 'running',
  failed: 'not running (it failed to start)',
};

/** What /status prints: project, model, session, whether the server runs, and the cost. */
export function statusText(
  state: Pick<UiState, 'model' | 'sessionId' | 'connection' | 'sessionUsage' | 'sessionCostUsd' | 'lastRun'>,
  workspaceRoot: string,
): string {
  return [
    `Project: ${workspaceRoot}`,
    `Model:   ${state.model ?? '(none)'}`,
    `Session: ${state.sessionId ?? '(new; saved with the first message)'}`,
    `Server:  ${SERVER_STATE[state.connection]}`,
    costText(state.sessionUsage, state.sessionCostUsd, state.lastRun),
  ].join('\n');
}

/**
 * runId → the user's text, from a session's records (session/export json: the typed records, or
 * the JSON text); a record that is not a SessionRecord of this version is passed over.
 */
export function promptTexts(exported: readonly unknown[] | string): Map<string, string> {
  const texts = new Map<string, string>();
  let records: unknown = exported;
  if (typeof exported === 'string') {
    try {
      records = JSON.parse(exported);
    } catch {
      return texts;
    }
  }
  if (!Array.isArray(records)) return texts;
  for (const entry of records as unknown[]) {
    const parsed = SessionRecord.safeParse(entry);
    if (parsed.success && parsed.data.type === 'prompt') texts.set(parsed.data.runId, parsed.data.text);
  }
  return texts;
}

/**
 * What /undo did, newest first, in the words of what happened to each file: a file the change
 * created was deleted, a moved one moved back, a changed or deleted one restored; one left as it
 * is says why.
 */
export function undoText(changes: readonly UndoneChange[]): string {
  if (changes.length === 0) return 'Nothing left to undo.';
  const lines = changes.map((change) => {
    if (change.outcome === 'restored') {
      const [done, what] = undone(change);
      return `  ${done.padEnd(10)}  ${what}`;
    }
    const where = `${change.path}${change.destination === undefined ? '' : ` → ${change.destination}`}`;
    const why = change.reason === undefined ? '' : `: ${change.reason}`;
    return `  ${'left as is'.padEnd(10)}  ${where} (${KEPT[change.operation]})${why}`;
  });
  return ['Undone:', ...lines].join('\n');
}

/** What the change had done, said of a file an undo left as it is. */
const KEPT: Record<UndoneChange['operation'], string> = {
  create: 'the change had created it',
  modify: 'the change had edited it',
  delete: 'the change had deleted it',
  move: 'the change had moved it',
};

/** The verb of an undone change and the file(s) it concerns. */
function undone(change: UndoneChange): [string, string] {
  switch (change.operation) {
    case 'create':
      return ['deleted', change.path];
    case 'modify':
      return ['restored', change.path];
    case 'delete':
      return ['restored', `${change.path} (it had been deleted)`];
    case 'move':
      // The file went from `path` to `destination`; the undo brought it back.
      return ['moved back', `${change.destination ?? '?'} → ${change.path}`];
    default: {
      const exhaustive: never = change.operation;
      throw new Error(`unknown operation ${String(exhaustive)}`);
    }
  }
}

/**
 * What Ctrl+O prints of a tool call: the diff of the change the user allowed, then what the model
 * read. `position` of `total`: which of the kept outputs it is (1 the oldest).
 */
export function outputEntries(output: ToolOutput, position: number, total: number): NewEntry[] {
  const entries: NewEntry[] = [];
  if (output.diff !== undefined)
    entries.push({
      kind: 'block',
      title: `${output.title}: the change as applied`,
      lines: output.diff,
      diff: true,
    });
  const older = position > 1 ? `; ${keyOf('expandOutput')} again: the one before` : '';
  entries.push({
    kind: 'block',
    title: `${output.title} (output ${position} of ${total}${older})`,
    lines: output.text === '' ? ['(no output)'] : output.text.split('\n'),
    diff: false,
  });
  return entries;
}

/**
 * An error's message for the screen: the server's own words, without the "santra: " of the
 * command line or the name of the protocol method it refused (client/session.ts words both).
 */
export function messageOf(error: unknown): string {
  if (error instanceof PrintError)
    return error.message.replace(/^santra: /, '').replace(/^santra-server refused [\w/]+: /, '');
  return error instanceof Error ? error.message : String(error);
}
