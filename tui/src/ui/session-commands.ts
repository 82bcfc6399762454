/**
 * What /model, /resume, /compact, /undo and /export do with the server, as functions of the
 * backend: each returns what the controller shows or keeps, so controller.ts keeps only the wiring.
 */
import { writeFile } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import type { Usage } from '#protocol';
import type { Backend } from './backend.ts';
import { formatCost, promptTexts, undoText } from './command-text.ts';

export interface CommandNote {
  text: string;
  tone: 'info' | 'warning';
}

/**
 * The model /model names, for the session (`model/set`) or, without that method, for each prompt
 * (`perPrompt`: the client sends it with every prompt, after checking the server knows it and has
 * its provider's key). `listed`: whether model/list has it (a model it does not list is sent as
 * it is, its context guessed and its cost unknown).
 */
export async function chooseModel(
  backend: Backend,
  model: string,
  sessionId: string | undefined,
): Promise<{ model: string; perPrompt: boolean; listed: boolean }> {
  if (backend.methods?.has('model/set') === true) {
    const result = await backend.request('model/set', {
      model,
      ...(sessionId === undefined ? {} : { sessionId }),
    });
    const { models } = await backend.models();
    return {
      model: result.model,
      perPrompt: false,
      listed: models.some((entry) => entry.ref === result.model),
    };
  }
  const known = (await backend.models()).models.find((entry) => entry.ref === model || entry.id === model);
  if (known === undefined) throw new Error(`Unknown model ${model}. /models lists them.`);
  if (!known.configured) throw new Error(`${known.ref}: its provider has no key; set it, then choose again.`);
  return { model: known.ref, perPrompt: true, listed: true };
}

/**
 * runId → the user's text of each run of a saved session (phases carry none), from
 * `session/export` (json); empty when the server does not offer it or it fails, and /resume then
 * replays the answers alone.
 */
export async function sessionPrompts(backend: Backend, sessionId: string): Promise<Map<string, string>> {
  if (backend.methods?.has('session/export') !== true) return new Map();
  return backend.request('session/export', { sessionId, format: 'json' }).then(
    // The typed records (protocol 0.3.0), or the JSON text an older server sends alone.
    (exported) => promptTexts(exported.records ?? exported.content),
    () => new Map<string, string>(),
  );
}

/** /compact: what to say, and the summary's tokens and cost, which the session's now include. */
export async function compactSession(
  backend: Backend,
  sessionId: string,
): Promise<CommandNote & { usage: Usage; costUsd: number }> {
  const result = await backend.request('session/compact', { sessionId });
  return {
    text: result.compacted
      ? `Compacted: ${result.messagesBefore} messages → ${result.messagesAfter} (summary ${formatCost(result.costUsd)}).`
      : `Too little to compact yet (${result.messagesBefore} messages).`,
    tone: 'info',
    usage: result.usage,
    costUsd: result.costUsd,
  };
}

/** `arg`: empty (the last change) or "run" (the last run); anything else is refused. */
export async function undoInSession(backend: Backend, sessionId: string, arg: string): Promise<CommandNote> {
  if (arg !== '' && arg !== 'run' && arg !== 'change') throw new Error('/undo takes no argument, or "run".');
  const { changes } = await backend.request('session/undo', {
    sessionId,
    scope: arg === 'run' ? 'run' : 'change',
  });
  const kept = changes.some((change) => change.outcome === 'kept');
  return { text: undoText(changes), tone: kept ? 'warning' : 'info' };
}

/**
 * The transcript to a Markdown file (never over an existing one): the saved session as the server
 * writes it (`session/export`) when there is one and the server offers it, else `shown()`, what
 * this screen showed. A relative `name` is taken from `startDir`; empty, a dated name.
 */
export async function exportTranscript(options: {
  backend: Backend | undefined;
  sessionId: string | undefined;
  name: string;
  startDir: string;
  shown: () => string;
}): Promise<CommandNote> {
  const { backend, sessionId } = options;
  const name =
    options.name !== '' ? options.name : `santra-${new Date().toISOString().replace(/[:.]/g, '-')}.md`;
  const file = isAbsolute(name) ? name : join(options.startDir, name);
  const content =
    sessionId !== undefined && backend?.methods?.has('session/export') === true
      ? (await backend.request('session/export', { sessionId, format: 'markdown' })).content
      : options.shown();
  await writeFile(file, content, { flag: 'wx' });
  return { text: `Transcript written to ${file}`, tone: 'info' };
}
