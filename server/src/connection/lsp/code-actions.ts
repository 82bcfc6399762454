/**
 * The code actions `santra lsp` offers on a selection: explain, fix, ask (with the question of a
 * `santra:` comment, or a choice of questions), undo after a run changed files, cancel while a
 * run is going, and — first, while Santra waits on the user — one action per answer to the
 * pending approval or question. Each action is a command (`workspace/executeCommand`): the run
 * starts when it is picked.
 */
import {
  type CodeAction,
  CodeActionKind,
  type CodeActionParams,
  type Command,
} from 'vscode-languageserver-protocol';
import { COMMANDS, effectiveRange, questionIn, type Target } from './commands.ts';
import { type OpenDocument, textIn } from './documents.ts';
import { hunkAnswers, linesLabel, touches } from './hunk-actions.ts';
import type { PendingInteraction } from './interactions.ts';

export interface CodeActionState {
  document: OpenDocument;
  pending: readonly PendingInteraction[];
  /** A run is going in the document's workspace. */
  running: boolean;
  /** A run in the document's workspace changed files that santra.undo may put back. */
  canUndo: boolean;
  /** The editor can show a choice of questions (showMessageRequest). */
  canChooseQuestion: boolean;
}

const TITLE_QUESTION_CHARS = 50;

export function codeActions(params: CodeActionParams, state: CodeActionState): CodeAction[] {
  const actions = [
    ...hunkActions(params, state),
    ...answerActions(state.pending),
    ...runActions(params, state),
  ];
  const only = params.context.only;
  if (only === undefined || only.length === 0) return actions;
  return actions.filter((action) => only.some((kind) => action.kind?.startsWith(kind) === true));
}

function answerActions(pending: readonly PendingInteraction[]): CodeAction[] {
  return pending.flatMap((interaction) =>
    interaction.choices.map((choice) =>
      action(`Santra: ${choice.title} — ${interaction.subject}`, CodeActionKind.QuickFix, {
        title: choice.title,
        command: COMMANDS.answer,
        arguments: [{ id: interaction.id, answer: choice.answer }],
      }),
    ),
  );
}

/**
 * On the lines a waiting change's hunk changes: apply only that hunk, or all but it (protocol
 * §7.3.2); the whole-change answers (allow, reject) follow as for any approval.
 */
function hunkActions(params: CodeActionParams, state: CodeActionState): CodeAction[] {
  const { start, end } = params.range;
  return state.pending.flatMap((interaction) =>
    interaction.hunks
      .filter((hunk) => touches(hunk, state.document.path, start.line, end.line))
      .flatMap((hunk) =>
        hunkAnswers(hunk, linesLabel(hunk)).map(({ title, hunks }) =>
          action(`Santra: ${title} — ${interaction.subject}`, CodeActionKind.QuickFix, {
            title,
            command: COMMANDS.answer,
            arguments: [{ id: interaction.id, answer: 'allow', hunks }],
          }),
        ),
      ),
  );
}

function runActions(params: CodeActionParams, state: CodeActionState): CodeAction[] {
  if (state.running) {
    return [
      action('Santra: cancel the run', CodeActionKind.Empty, { title: 'cancel', command: COMMANDS.cancel }),
    ];
  }
  const range = effectiveRange(params.range);
  const target: Target = {
    uri: params.textDocument.uri,
    range,
    diagnostics: params.context.diagnostics.map(({ range, message, source, severity, code }) => ({
      range,
      message: typeof message === 'string' ? message : message.value,
      ...(source === undefined ? {} : { source }),
      ...(severity === undefined ? {} : { severity }),
      ...(code === undefined ? {} : { code }),
    })),
  };
  const run = (title: string, command: string, kind: string, argument: Target = target) =>
    action(title, kind, { title, command, arguments: [argument] });
  const actions = [
    run('Santra: fix', COMMANDS.fix, CodeActionKind.QuickFix),
    run('Santra: explain', COMMANDS.explain, CodeActionKind.Empty),
  ];
  const question = questionIn(textIn(state.document.text, range));
  if (question !== undefined) {
    actions.push(
      run(`Santra: ask “${clip(question)}”`, COMMANDS.ask, CodeActionKind.Empty, { ...target, question }),
    );
  } else if (state.canChooseQuestion) {
    actions.push(run('Santra: ask…', COMMANDS.ask, CodeActionKind.Empty));
  }
  if (state.canUndo) {
    actions.push(
      action('Santra: undo the last change', CodeActionKind.Empty, { title: 'undo', command: COMMANDS.undo }),
    );
  }
  return actions;
}

function action(title: string, kind: string, command: Command): CodeAction {
  return kind === CodeActionKind.Empty ? { title, command } : { title, kind, command };
}

function clip(text: string): string {
  return text.length > TITLE_QUESTION_CHARS ? `${text.slice(0, TITLE_QUESTION_CHARS - 1)}…` : text;
}
