import * as z from 'zod';
import { applyEdit } from './files/change.ts';
import { checkEditable, fsErrorResult, resolveTarget } from './files/helpers.ts';
import { isMatchFailure, replaceUnique } from './files/text-match.ts';
import { defineTool, toolError } from './types.ts';

const Edit = z.object({
  oldStr: z
    .string()
    .describe(
      'The exact text to replace; must occur exactly once in the file as it stands after the edits before this one.',
    ),
  newStr: z.string().describe('The text to put in its place.'),
});

/**
 * `multi_edit {path, edits}`: several str_replace edits to one file, applied in order to the
 * running result and approved as one diff. All or nothing: if one edit fails, none is written.
 */
export function multiEditTool() {
  return defineTool({
    name: 'multi_edit',
    kind: 'edit',
    description:
      'Make several exact-text replacements in one file at once, approved as one diff. Edits apply in order, each to the result of the ones before, ' +
      'and each oldStr must occur exactly once at that point (same rules as str_replace). All or nothing: if any edit fails, the file is not changed and the error names the edit.',
    parameters: z.object({
      path: z.string().describe('File path, relative to the workspace root.'),
      edits: z.array(Edit).min(1).max(100).describe('The replacements, applied in this order.'),
    }),
    async execute(args, context) {
      const target = await resolveTarget(context, 'read', args.path);
      if ('error' in target) return target.error;
      for (const [index, edit] of args.edits.entries()) {
        const invalid = replaceUnique('', edit.oldStr, edit.newStr);
        if (isMatchFailure(invalid) && invalid.errorType === 'invalid_arguments') {
          return toolError(invalid.errorType, `edits[${index}]: ${invalid.message} No edit was applied.`);
        }
      }
      try {
        const problem = await checkEditable(context, target);
        if (problem !== undefined) return problem;
        let altered = false;
        const result = await applyEdit(
          context,
          target,
          (current, prefix) => {
            let text = current;
            for (const [index, edit] of args.edits.entries()) {
              const outcome = replaceUnique(text, edit.oldStr, edit.newStr);
              if (isMatchFailure(outcome)) {
                const where =
                  index === 0 ? '' : ' (line numbers are those of the text after the edits before it)';
                return {
                  error: toolError(
                    outcome.errorType,
                    `${prefix}edits[${index}] failed${where}: ${outcome.message} No edit was applied; fix this edit and send them all again.`,
                  ),
                };
              }
              text = outcome.text;
            }
            return { content: text };
          },
          // The person wrote part of it or their own version: the result says what, not "applied N".
          { onAltered: () => (altered = true) },
        );
        if (result.isError === true || result.summary === 'no change' || altered) return result;
        return {
          ...result,
          output: `${result.output} Applied ${args.edits.length} edit${args.edits.length === 1 ? '' : 's'}.`,
        };
      } catch (error) {
        return fsErrorResult(error, target.display);
      }
    },
  });
}
