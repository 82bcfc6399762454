import * as z from 'zod';
import { applyEdit } from './files/change.ts';
import { checkEditable, editSnippet, fsErrorResult, resolveTarget } from './files/helpers.ts';
import { isMatchFailure, type Replaced, replaceUnique } from './files/text-match.ts';
import { defineTool, toolError } from './types.ts';

/**
 * `str_replace {path, oldStr, newStr}`: replaces the one occurrence of `oldStr`. Fails, saying how
 * often it occurred and where, unless it occurs exactly once. The search is redone on the current
 * content if the file changes while the user approves.
 */
export function strReplaceTool() {
  return defineTool({
    name: 'str_replace',
    kind: 'edit',
    description:
      'Replace one exact piece of text in an existing file. oldStr must match the file exactly (whitespace and indentation included, ' +
      "without read_file's line-number prefix) and occur exactly once: include enough surrounding lines to make it unique. " +
      'The user approves the change as a diff. For several changes to one file use multi_edit; to create a file use write_file.',
    parameters: z.object({
      path: z.string().describe('File path, relative to the workspace root.'),
      oldStr: z.string().describe('The exact text to replace; must occur exactly once in the file.'),
      newStr: z.string().describe('The text to put in its place (may be empty to delete oldStr).'),
    }),
    async execute(args, context) {
      const target = await resolveTarget(context, 'read', args.path);
      if ('error' in target) return target.error;
      const invalid = replaceUnique('', args.oldStr, args.newStr);
      if (isMatchFailure(invalid) && invalid.errorType === 'invalid_arguments')
        return toolError(invalid.errorType, invalid.message);
      try {
        const problem = await checkEditable(context, target);
        if (problem !== undefined) return problem;
        let replaced: Replaced | undefined;
        // The person wrote part of it or their own version: the result says what, not the proposal.
        let altered = false;
        const result = await applyEdit(
          context,
          target,
          (current, prefix) => {
            const outcome = replaceUnique(current, args.oldStr, args.newStr);
            if (isMatchFailure(outcome)) {
              return {
                error: toolError(
                  outcome.errorType,
                  `${prefix}${outcome.message}${prefix === '' ? '' : ' Nothing was written.'}`,
                ),
              };
            }
            replaced = outcome;
            return { content: outcome.text };
          },
          { onAltered: () => (altered = true) },
        );
        if (result.isError === true || replaced === undefined || altered) return result;
        const span = (start: number, count: number) =>
          count === 1 ? `line ${start}` : `lines ${start}–${start + count - 1}`;
        return {
          ...result,
          output:
            `${result.output} Replaced ${span(replaced.line, replaced.oldLines)} with ${span(replaced.line, replaced.newLines)}. The edited part now reads:\n` +
            editSnippet(replaced.text, replaced.line, replaced.newLines),
        };
      } catch (error) {
        return fsErrorResult(error, target.display);
      }
    },
  });
}
