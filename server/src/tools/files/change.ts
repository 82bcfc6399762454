/**
 * Every file change goes through here: compute the new content from the current one, show it to
 * the approval gate, and write it atomically, only when allowed and only if the file is still what
 * the diff showed. The whole change holds the file's lock, so parallel edits of one file queue up
 * and each is computed on the result of the one before. If the file changed on disk meanwhile (the
 * user, another program), the change is recomputed and asked again rather than clobbering it.
 *
 * The file is read and written through its pinned parent directory (`workspace/pinned-dir.ts`), re-walked
 * from the workspace root after the approval: a directory swapped for a symbolic link meanwhile
 * is refused, never followed out of the workspace.
 *
 * Where the client's editor lends its buffers (§7.5), a file it holds is changed as the user sees
 * it: computed from the buffer's text, unsaved changes included, and an approved change of an
 * existing file is put into the buffer, which the editor saves; the disk is checked afterwards.
 * Creations and deletions stay on disk.
 *
 * The person may allow only some hunks of a creation or modification, or their own version of
 * it (§7.3.2, approval/hunks.ts): then that is what is written — under the same check that the
 * file is still what the diff was computed from — what the session records and undo restores,
 * and what the model is told, hunk by hunk or as the person's diff against its proposal.
 */
import { unlink } from 'node:fs/promises';
import type { GateDecision } from '../../approval/gate.ts';
import { applyHunks, describeEdited, describePartial, hunkId } from '../../approval/hunks.ts';
import { atomicWriteIn } from '../../workspace/atomic-write.ts';
import { type PinnedDir, readEntry, withPinnedParent } from '../../workspace/pinned-dir.ts';
import type { ResolvedPath } from '../../workspace/workspace.ts';
import { CHANGED_DURING_APPROVAL } from './text-match.ts';
import { type EditorAccess, refused, type ToolContext, type ToolResult, toolError } from '../types.ts';

/** The new content (undefined deletes the file), or an error for the model. */
export type Produce = (
  current: string | undefined,
) => { content: string | undefined } | { error: ToolResult };

const MAX_ROUNDS = 3;

/** For the tool that proposed the change: told when the person wrote something else (§7.3.2). */
export interface ChangeOptions {
  /** Called once what was written is not the proposal (some hunks, or the person's version). */
  onAltered?: () => void;
}

/**
 * The bytes a change replaces, read through the pinned parent `dir` (undefined: it is missing). A
 * symbolic link counts as no content: the write replaces the link itself (rename), and its target —
 * possibly outside the workspace — is never read into a diff.
 */
async function currentBytes(dir: PinnedDir | undefined, name: string): Promise<Buffer | undefined> {
  return dir === undefined ? undefined : await readEntry(dir, name);
}

/** The file's bytes on disk, read through its parent walked from the root (undefined: missing). */
function diskBytes(context: ToolContext, target: ResolvedPath): Promise<Buffer | undefined> {
  return withPinnedParent(
    context.workspace,
    target.absolute,
    { create: false, display: target.display },
    currentBytes,
  );
}

export function lineCount(text: string | undefined): number {
  if (text === undefined || text === '') return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

/**
 * applyFileChange for an edit of an existing file: `edit` gets the current text and `prefix`, empty
 * the first time and, when the file changed while the user was asked, a sentence saying so to put
 * before an error. A file that is gone by then is a not_found error.
 */
export function applyEdit(
  context: ToolContext,
  target: ResolvedPath,
  edit: (current: string, prefix: string) => ReturnType<Produce>,
  options: ChangeOptions = {},
): Promise<ToolResult> {
  let rounds = 0;
  return applyFileChange(
    context,
    target,
    (current) => {
      const prefix = ++rounds > 1 ? CHANGED_DURING_APPROVAL : '';
      if (current === undefined) {
        return {
          error: toolError('not_found', `${prefix}${target.display} no longer exists; nothing was written.`),
        };
      }
      return edit(current, prefix);
    },
    options,
  );
}

export function applyFileChange(
  context: ToolContext,
  target: ResolvedPath,
  produce: Produce,
  options: ChangeOptions = {},
): Promise<ToolResult> {
  return context.files.withLock(target.absolute, () => changeFile(context, target, produce, options));
}

async function changeFile(
  context: ToolContext,
  target: ResolvedPath,
  produce: Produce,
  options: ChangeOptions,
): Promise<ToolResult> {
  const { editor } = context;
  const display = target.display;
  let note = '';
  for (let round = 1; round <= MAX_ROUNDS; round++) {
    const disk = await diskBytes(context, target);
    // A file the editor holds is changed as the user sees it, unsaved changes included (§7.5).
    const held = disk === undefined ? undefined : await editor?.readText?.(target.absolute);
    const current = held ?? disk?.toString('utf8');
    if (round === 1) {
      const stale = context.files.modifiedSinceRead(context.agentId, target.absolute, display, held ?? disk);
      if (stale !== undefined) return toolError('modified_since_read', stale);
    }
    const produced = produce(current);
    if ('error' in produced) return produced.error;
    const proposed = produced.content;
    if (proposed === current)
      return {
        output: `${target.display} already has this content; nothing to change.`,
        summary: 'no change',
      };
    const operation = proposed === undefined ? 'delete' : current === undefined ? 'create' : 'modify';
    const decision = await context.gate.fileChange({
      path: target,
      operation,
      oldContent: current,
      newContent: proposed,
      editable: true,
    });
    if (!decision.allowed) return refused(decision);
    const answer = whatToWrite(decision, target.display, current, proposed);
    if ('result' in answer) return answer.result;
    const next = answer.content;
    // The approval is bound to the diff it showed: write only over the content it was computed
    // from. A change meanwhile (not ours: we hold the lock) means compute and ask again.
    const writeText = editor?.writeText;
    const done =
      operation === 'modify' && next !== undefined && writeText !== undefined
        ? await writeThroughEditor(context, target, writeText, { current, held, disk, next })
        : await writeOnDisk(context, target, { disk, next });
    if (done !== false) {
      // The bytes replaced, not their text: undo restores a file that was not UTF-8 exactly.
      context.fileChanged({
        path: display,
        operation,
        before: done.replaced,
        after: next === undefined ? undefined : Buffer.from(next, 'utf8'),
      });
      if (next === undefined) context.files.forget(context.agentId, target.absolute);
      else context.files.recordSeen(context.agentId, target.absolute, next);
      const verb = next === undefined ? 'Deleted' : current === undefined ? 'Created' : 'Updated';
      if (answer.told !== undefined) options.onAltered?.();
      return {
        output: `${verb} ${target.display}.${note}${answer.told === undefined ? '' : `\n${answer.told}`}`,
        summary: `${verb.toLowerCase()} ${target.display} (${lineCount(next)} lines${answer.how === undefined ? '' : `, ${answer.how}`})`,
      };
    }
    note =
      ' (The file changed while the change was being approved; it was recomputed on the new content and approved again.)';
  }
  return toolError(
    'modified_during_approval',
    `${target.display} kept changing while the change was being approved; nothing was written. Read it again and retry.`,
  );
}

/**
 * What an allow writes: the proposal, only the accepted hunks of it, or the person's version —
 * with what the model is told (`told`) and the user sees (`how`) when it is not the proposal.
 * Accepting no hunk at all writes nothing, and the model reads which hunks it proposed.
 */
function whatToWrite(
  decision: Extract<GateDecision, { allowed: true }>,
  display: string,
  current: string | undefined,
  proposed: string | undefined,
): { content: string | undefined; told?: string; how?: string } | { result: ToolResult } {
  const edited = decision.edited;
  if (edited === undefined || proposed === undefined) return { content: proposed };
  switch (edited.kind) {
    case 'hunks': {
      const { diff, accepted } = edited;
      const applied = diff.hunks.filter((hunk) => accepted.has(hunk.id ?? hunkId(hunk))).length;
      const told = describePartial(display, diff, accepted);
      if (applied === 0) {
        return {
          result: {
            output: `Nothing was written to ${display}. ${told}`,
            summary: `no hunk of ${diff.hunks.length} accepted`,
            isError: true,
            errorType: 'rejected',
            rejected: true,
          },
        };
      }
      return {
        content: applyHunks(current ?? '', proposed, diff, accepted),
        told,
        how: `${applied} of ${diff.hunks.length} hunks`,
      };
    }
    case 'content':
      return {
        content: edited.content,
        told: describeEdited(display, proposed, edited.content),
        how: 'edited by the user',
      };
    case 'command':
      throw new Error(
        `an edited command answered the change of ${display}; the gate lets no such answer through`,
      );
    default: {
      const exhaustive: never = edited;
      throw new Error(`unknown edit ${JSON.stringify(exhaustive)}`);
    }
  }
}

/** What a change was computed from and what it writes. */
interface Approved {
  /** The disk's bytes then (undefined: no file). */
  disk: Buffer | undefined;
  /** The new content (undefined deletes the file). */
  next: string | undefined;
}

type Written = { replaced: Buffer | undefined } | false;

/**
 * Writes on disk, atomically, through the parent walked again from the root (its missing
 * directories created only now); false when the disk no longer holds what the change was
 * computed from.
 */
function writeOnDisk(context: ToolContext, target: ResolvedPath, approved: Approved): Promise<Written> {
  const { disk, next } = approved;
  const create = disk === undefined && next !== undefined;
  return withPinnedParent(
    context.workspace,
    target.absolute,
    { create, display: target.display },
    async (pinned, name): Promise<Written> => {
      const replaced = await currentBytes(pinned, name);
      if (replaced?.toString('utf8') !== disk?.toString('utf8')) return false;
      // Unchanged and missing: only a creation, whose directories were just made.
      if (pinned === undefined) throw new Error(`${target.absolute}: no directory to write in`);
      if (next === undefined) {
        await pinned.verify();
        await unlink(pinned.entry(name));
        await pinned.sync();
      } else {
        await atomicWriteIn(pinned, name, next);
      }
      return { replaced };
    },
  );
}

/**
 * An approved change of an existing file the editor lends: into its buffer, which it saves, so the
 * user's view and undo history take it (§7.5). False when the editor's text (or, where it holds
 * none, the disk) changed since the change was computed. Whatever the editor did, the disk then
 * holds the approved text: commands that run next must see it (SANTRA-FILES-006).
 */
async function writeThroughEditor(
  context: ToolContext,
  target: ResolvedPath,
  writeText: NonNullable<EditorAccess['writeText']>,
  approved: Approved & {
    /** The content the change was computed from: the editor's text, else the disk's. */
    current: string | undefined;
    /** The editor's text then (undefined: it held none). */
    held: string | undefined;
    next: string;
  },
): Promise<Written> {
  const { current, held, next } = approved;
  const display = target.display;
  const now = await diskBytes(context, target);
  if (now === undefined) return false;
  const heldNow = held === undefined ? undefined : await context.editor?.readText?.(target.absolute);
  if ((heldNow ?? now.toString('utf8')) !== current) return false;
  await writeText(target.absolute, next);
  await withPinnedParent(
    context.workspace,
    target.absolute,
    { create: false, display },
    async (pinned, name) => {
      if (pinned === undefined) throw new Error(`${target.absolute}: its directory is gone`);
      const saved = await currentBytes(pinned, name);
      if (saved?.toString('utf8') !== next) await atomicWriteIn(pinned, name, next);
    },
  );
  // What the user had, unsaved changes included, is what undo gives back.
  return { replaced: held === undefined ? now : Buffer.from(held, 'utf8') };
}
