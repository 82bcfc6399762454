import * as z from 'zod';
import { named } from './registry.ts';

/** The most files, ranges and diagnostics one prompt's context may carry. */
export const MAX_CONTEXT_FILES = 50;
export const MAX_CONTEXT_RANGES = 20;
export const MAX_CONTEXT_DIAGNOSTICS = 200;

export const ContextPosition = named(
  'ContextPosition',
  'A place in a file: `line` 1-based, `column` 1-based in characters (Unicode code points) of that line. An editor that counts from 0 (LSP) adds 1; one that counts UTF-16 units converts, or leaves `column` out.',
  z.object({
    line: z.number().int().positive(),
    column: z.number().int().positive().optional(),
  }),
);
export type ContextPosition = z.infer<typeof ContextPosition>;

export const ContextRange = named(
  'ContextRange',
  'A span of a file, from `start` to `end`, both included; `end` is not before `start`. Without columns it is whole lines.',
  z
    .object({ start: ContextPosition, end: ContextPosition })
    .refine(
      ({ start, end }) =>
        end.line > start.line || (end.line === start.line && (end.column ?? Infinity) >= (start.column ?? 1)),
      { message: 'end is before start' },
    ),
);
export type ContextRange = z.infer<typeof ContextRange>;

const contextPath = z
  .string()
  .min(1)
  .describe('The file: absolute, or relative to the workspace root. It must be inside the workspace.');

export const ContextFile = named(
  'ContextFile',
  'A file the person has in front of them. The server reads the selected lines itself — through `fs/readTextFile` when the client lends its buffers (§7.5), so unsaved text is what the model sees.',
  z.object({
    path: contextPath,
    focused: z
      .boolean()
      .optional()
      .describe('The file the person is looking at now (at most one file is focused).'),
    cursor: ContextPosition.optional().describe('Where the cursor is.'),
    selections: z
      .array(ContextRange)
      .max(MAX_CONTEXT_RANGES)
      .optional()
      .describe(
        'What the person selected, e.g. a visual selection; each range is sent to the model with its text.',
      ),
  }),
);
export type ContextFile = z.infer<typeof ContextFile>;

export const DiagnosticSeverity = named(
  'DiagnosticSeverity',
  "How bad a diagnostic is, as the editor's language tooling said.",
  z.enum(['error', 'warning', 'information', 'hint']),
);
export type DiagnosticSeverity = z.infer<typeof DiagnosticSeverity>;

export const ContextDiagnostic = named(
  'ContextDiagnostic',
  "A problem the editor's language tooling reports in a file (an LSP diagnostic).",
  z.object({
    path: contextPath,
    range: ContextRange,
    severity: DiagnosticSeverity,
    message: z.string().min(1),
    source: z.string().optional().describe('What reported it, e.g. "tsserver", "eslint".'),
    code: z.union([z.string(), z.number()]).optional().describe("The tool's code for it, e.g. 2322."),
  }),
);
export type ContextDiagnostic = z.infer<typeof ContextDiagnostic>;

export const PromptContext = named(
  'PromptContext',
  'What the person has in front of them when they send the prompt: open files, the cursor, selections and diagnostics. The server adds it to the prompt for the model (files read as the workspace reads them, bounded) and records it with the prompt. Since 0.3.0.',
  z.object({
    files: z.array(ContextFile).max(MAX_CONTEXT_FILES).optional(),
    diagnostics: z.array(ContextDiagnostic).max(MAX_CONTEXT_DIAGNOSTICS).optional(),
  }),
);
export type PromptContext = z.infer<typeof PromptContext>;
