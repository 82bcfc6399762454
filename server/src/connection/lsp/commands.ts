/**
 * The commands `santra lsp` offers (`workspace/executeCommand`), their arguments checked with
 * zod so a bad call gets an error naming what was wrong, and the Santra prompt each run sends:
 * the user's intent, the file and lines, and the selected text as the editor has it.
 */
import { relative } from 'node:path';
import * as z from 'zod';
import type { Range } from 'vscode-languageserver-protocol';
import type { PromptContext } from '#protocol';
import { type OpenDocument, textIn } from './documents.ts';

export const COMMANDS = {
  explain: 'santra.explain',
  fix: 'santra.fix',
  ask: 'santra.ask',
  answer: 'santra.answer',
  cancel: 'santra.cancel',
  undo: 'santra.undo',
} as const;

export type RunKind = 'explain' | 'fix' | 'ask';

const Position = z.object({
  line: z.number().int().nonnegative(),
  character: z.number().int().nonnegative(),
});
const RangeSchema = z.object({ start: Position, end: Position });

/** Where a run points: what a code action passes to its command. */
const Target = z.object({
  uri: z.string().min(1),
  range: RangeSchema,
  /** The editor's diagnostics in the range, for a fix. */
  diagnostics: z
    .array(
      z.object({
        range: RangeSchema,
        message: z.string(),
        source: z.string().optional(),
        /** LSP's DiagnosticSeverity: 1 error, 2 warning, 3 information, 4 hint. */
        severity: z.number().int().min(1).max(4).optional(),
        code: z.union([z.string(), z.number()]).optional(),
      }),
    )
    .optional(),
  /** For ask: the question, taken from a `santra:` comment or typed. */
  question: z.string().min(1).optional(),
});
export type Target = z.infer<typeof Target>;

/**
 * `santra.explain|fix|ask` take one Target; `santra.ask` also takes a question alone (typed in
 * the editor's command line: Helix `:lsp-workspace-command santra.ask "why…"`, where each argument
 * is a JSON value, so text is typed in double quotes), with no file.
 */
const RunArguments = z.union([z.tuple([Target]), z.tuple([z.string().min(1)])]);
/**
 * `santra.answer` takes an answer, alone or as `{answer}` (for the oldest pending interaction) or
 * with its id; an `allow` may name the hunks of the change to apply (protocol §7.3.2), as the
 * per-hunk code actions do.
 */
const AnswerArguments = z.union([
  z.tuple([z.string()]),
  z.tuple([
    z.object({
      id: z.string().min(1).optional(),
      answer: z.string(),
      hunks: z.array(z.string().min(1)).optional(),
    }),
  ]),
]);
/** What `santra.undo` puts back (protocol session/undo `scope`): the last change, or the last run's. */
export type UndoScope = 'change' | 'run';
const UndoArguments = z.union([z.tuple([]), z.tuple([z.enum(['change', 'run'])])]);

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

export function parseRunArguments(command: string, args: unknown[] | undefined): Parsed<Target | string> {
  const parsed = RunArguments.safeParse(args ?? []);
  if (parsed.success) {
    const [value] = parsed.data;
    if (typeof value === 'string' && command !== COMMANDS.ask) {
      return { ok: false, error: `${command} needs a selection: run it from the code actions on the code` };
    }
    return { ok: true, value };
  }
  return {
    ok: false,
    error: `${command} takes one argument {uri, range[, diagnostics, question]}${command === COMMANDS.ask ? ' or a question' : ''}: ${z.prettifyError(parsed.error).replaceAll('\n', ' ')}. Run it from the code actions on a selection.`,
  };
}

export function parseAnswerArguments(
  args: unknown[] | undefined,
): Parsed<{ id?: string; answer: string; hunks?: string[] }> {
  const parsed = AnswerArguments.safeParse(args ?? []);
  if (!parsed.success) {
    return {
      ok: false,
      error: `${COMMANDS.answer} takes the answer as one string, in double quotes on a command line: santra.answer "allow" (or "allow_all", "reject", "your feedback")`,
    };
  }
  const [value] = parsed.data;
  if (typeof value !== 'string' && value.hunks !== undefined && value.answer !== 'allow') {
    return {
      ok: false,
      error: `${COMMANDS.answer}: "hunks" goes with the answer "allow" (apply only those hunks), not "${value.answer}"`,
    };
  }
  return { ok: true, value: typeof value === 'string' ? { answer: value } : value };
}

export function parseUndoArguments(args: unknown[] | undefined): Parsed<UndoScope> {
  const parsed = UndoArguments.safeParse(args ?? []);
  if (!parsed.success) {
    return {
      ok: false,
      error: `${COMMANDS.undo} takes no argument (the last change), or "run" (every change of the last run)`,
    };
  }
  return { ok: true, value: parsed.data[0] ?? 'change' };
}

/** A `santra:` comment names the question: `// santra: why does this start at 1?`. */
const QUESTION_MARK = /santra:\s*(.+?)\s*(?:\*\/|-->)?\s*$/i;

/** The question a `santra:` comment in `text` asks, if one does. */
export function questionIn(text: string): string | undefined {
  for (const line of text.split('\n')) {
    const found = QUESTION_MARK.exec(line);
    if (found?.[1] !== undefined && found[1] !== '') return found[1];
  }
  return undefined;
}

/** An empty selection (a cursor) means the cursor's line. */
export function effectiveRange(range: Range): Range {
  if (range.start.line !== range.end.line || range.start.character !== range.end.character) return range;
  return {
    start: { line: range.start.line, character: 0 },
    end: { line: range.start.line + 1, character: 0 },
  };
}

export interface Selection {
  document: OpenDocument;
  root: string;
  range: Range;
  diagnostics?: Target['diagnostics'];
  question?: string;
}

/**
 * The text of the Santra prompt for a run of `kind` on the selection. A file Santra can read (one
 * with a path) goes as the prompt's context (editorContext), its lines read by the server from
 * the buffer the editor lends; a buffer with no file behind it is quoted in the text.
 */
export function promptText(kind: RunKind, selection: Selection): string {
  const { document, range } = selection;
  const name = document.path === undefined ? document.uri : relative(selection.root, document.path);
  const lines = lineSpan(range);
  const quoted =
    document.path === undefined ? `\n\n${fenced(document.languageId, textIn(document.text, range))}` : '';
  const inline = document.path === undefined ? problems(selection.diagnostics ?? []) : [];
  switch (kind) {
    case 'explain':
      return `Explain the selected code from ${name}, ${lines}: what it does and anything surprising in it. Do not change any file.${quoted}`;
    case 'fix':
      return (
        [
          `Fix the selected code in ${name}, ${lines}, and the problems the editor reports there. Edit the file in place and keep the change to what the fix needs.`,
          ...inline,
        ].join('\n') + quoted
      );
    case 'ask':
      return `${selection.question ?? ''}\n\nAbout the selected code from ${name}, ${lines}.${quoted}`;
  }
}

const SEVERITIES = ['error', 'warning', 'information', 'hint'] as const;

/**
 * The selection as the protocol's prompt context (§7.1.1): the file in view with the selected
 * lines and the diagnostics there, positions made 1-based. Columns are left out: LSP counts UTF-16
 * units, the protocol characters, and whole lines lose nothing the model needs.
 */
export function editorContext(selection: Selection): PromptContext | undefined {
  const { document, range } = selection;
  if (document.path === undefined) return undefined;
  const path = document.path;
  const lines = (span: Range) => ({ start: { line: span.start.line + 1 }, end: { line: lastLine(span) } });
  const diagnostics = (selection.diagnostics ?? []).map((d) => ({
    path,
    range: lines(d.range),
    severity: SEVERITIES[(d.severity ?? 1) - 1] ?? 'error',
    message: d.message === '' ? '(no message)' : d.message,
    ...(d.source === undefined ? {} : { source: d.source }),
    ...(d.code === undefined ? {} : { code: d.code }),
  }));
  return {
    files: [{ path, focused: true, selections: [lines(range)] }],
    ...(diagnostics.length === 0 ? {} : { diagnostics }),
  };
}

/** The 1-based last line of a range: one that ends at column 0 ends on the line before. */
function lastLine(range: Range): number {
  return range.end.character === 0 && range.end.line > range.start.line ? range.end.line : range.end.line + 1;
}

function lineSpan(range: Range): string {
  const first = range.start.line + 1;
  const last = lastLine(range);
  return first === last ? `line ${first}` : `lines ${first}-${last}`;
}

function problems(diagnostics: NonNullable<Target['diagnostics']>): string[] {
  if (diagnostics.length === 0) return [];
  return [
    '',
    'The editor reports there:',
    ...diagnostics.map(
      (d) =>
        `- line ${d.range.start.line + 1}: ${d.message}${d.source === undefined ? '' : ` (${d.source})`}`,
    ),
  ];
}

function fenced(language: string, text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((run) => run[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${language}\n${text.endsWith('\n') ? text : `${text}\n`}${fence}`;
}
