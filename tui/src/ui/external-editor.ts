/**
 * Text edited in the user's own editor (`$VISUAL`, then `$EDITOR`, then `vi`), as git does: the
 * variable is a shell command line (`code --wait`, `emacsclient -t`), run with the file as its
 * last argument. The UI hands the terminal over while the editor runs (Ink's suspendTerminal: raw
 * mode off, cursor shown, the frame erased) and takes it back afterwards with a full redraw.
 *
 * The text goes through a private temporary directory that is removed whatever happens, so a
 * proposal never lingers in /tmp after the answer.
 */
import type { ApproveParams, ApproveResult } from '#protocol';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { editProposal, type EditProposal, ProposalMismatch } from './approval-edit.ts';

/** What came of an edit: the text saved, or why there is none (the editor failed or was not found). */
export type EditOutcome = { saved: string } | { failed: string };

export interface EditorOptions {
  env: NodeJS.ProcessEnv;
  /**
   * Runs `task` with the terminal handed over to it (Ink's suspendTerminal); a plain call where
   * there is no UI to suspend.
   */
  suspend: (task: () => Promise<void>) => Promise<void>;
  /**
   * The UI's input stream: paused while the editor runs. Ink stops listening to it, but a read
   * already started would still take the first keys typed into the editor.
   */
  stdin?: NodeJS.ReadableStream;
}

/** The editor's command line: `$VISUAL`, then `$EDITOR` (either blank counts as unset), then `vi`. */
export function editorCommand(env: NodeJS.ProcessEnv): string {
  for (const name of ['VISUAL', 'EDITOR'] as const) {
    const value = env[name]?.trim();
    if (value !== undefined && value !== '') return value;
  }
  return 'vi';
}

/** Opens `text` as a file named `name` in the user's editor; resolves with what was saved. Never rejects. */
export async function editInEditor(text: string, name: string, options: EditorOptions): Promise<EditOutcome> {
  const command = editorCommand(options.env);
  let dir: string | undefined;
  try {
    // The editor's environment says where temporary files go (TMPDIR), as it does for the editor.
    dir = await mkdtemp(join(options.env.TMPDIR?.trim() || tmpdir(), 'santra-edit-'));
    const file = join(dir, safeName(name));
    await writeFile(file, text, { mode: 0o600 });
    const ran: { result?: EditorExit } = {};
    await options.suspend(async () => {
      const wasPaused = options.stdin?.isPaused();
      options.stdin?.pause();
      try {
        ran.result = await run(command, file, options.env);
      } finally {
        if (wasPaused === false) options.stdin?.resume();
      }
    });
    const result = ran.result ?? { error: new Error('the terminal could not be handed over') };
    if ('error' in result) {
      return {
        failed: `could not start the editor \`${command}\` (${result.error.message}); set $VISUAL or $EDITOR to one that exists`,
      };
    }
    if (result.code === 127) {
      return {
        failed: `the editor \`${command}\` was not found (the shell exited with 127); set $VISUAL or $EDITOR to one that exists`,
      };
    }
    if (result.code !== 0) {
      const how = result.signal === null ? `exited with ${result.code}` : `was stopped by ${result.signal}`;
      return { failed: `the editor \`${command}\` ${how}: nothing was answered` };
    }
    return { saved: await readFile(file, 'utf8') };
  } catch (error) {
    return { failed: `could not edit the proposal: ${(error as Error).message}` };
  } finally {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  }
}

/** How the editor ended: its exit code or signal, or why it did not start. */
type EditorExit = { code: number | null; signal: NodeJS.Signals | null } | { error: Error };

/** The file's own name, without anything that would leave the temporary directory. */
function safeName(name: string): string {
  const base = name.replace(/[/\\]/g, '_').replace(/^\.+/, '');
  return base === '' ? 'proposal' : base;
}

/**
 * Runs the editor through the shell (so `$EDITOR` may carry arguments), the file as `$1`, with the
 * terminal as its stdio. Resolves when it exits.
 */
function run(command: string, file: string, env: NodeJS.ProcessEnv): Promise<EditorExit> {
  return new Promise((resolve) => {
    const child = spawn('/bin/sh', ['-c', `${command} "$1"`, 'santra-editor', file], {
      stdio: 'inherit',
      env,
    });
    child.once('error', (error) => resolve({ error }));
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
}

/**
 * The overlay's `e` for `params`: the proposal (with the `chosen` hunks) opened in the editor, and
 * the answer that what was saved makes; `{note}` when nothing is answered (the editor failed, or the
 * file no longer matches the diff). Files are read under `root`, the workspace root the server
 * resolves the request's path against.
 */
export async function editApproval(
  params: ApproveParams,
  chosen: ReadonlySet<string> | undefined,
  root: string,
  options: EditorOptions,
): Promise<ApproveResult | { note: string }> {
  let proposal: EditProposal;
  try {
    proposal = editProposal(params, chosen, (path) => readIfThere(resolve(root, path)));
  } catch (error) {
    if (!(error instanceof ProposalMismatch)) throw error;
    return { note: `Cannot open it in the editor: ${error.message}. Answer it as shown, or by hunks.` };
  }
  const outcome = await editInEditor(proposal.text, proposal.name, options);
  return 'failed' in outcome ? { note: `${outcome.failed}.` } : proposal.answer(outcome.saved);
}

function readIfThere(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ProposalMismatch(`cannot read ${file}: ${(error as Error).message}`);
  }
}
