/**
 * Hooks in Claude Code's settings schema, exactly, so a user can paste their `hooks` block from
 * `~/.claude/settings.json` into Santra's config (or a project's `.santra/settings.json`): event →
 * matcher groups → command hooks. Kept in config/ because the config file is validated with it;
 * hooks/ runs them.
 */
import * as z from 'zod';
import { HookEventName } from '#protocol';

/** The events Santra runs hooks for: Claude Code's nine, as the protocol names them. */
export const HOOK_EVENTS = HookEventName.options;
export type HookEvent = HookEventName;

/** Claude Code's limit when a hook says none: 60 s. */
export const DEFAULT_HOOK_TIMEOUT_SECONDS = 60;

const CommandHook = z.strictObject({
  type: z.literal('command', {
    error: 'expected "command" (Santra runs command hooks; Claude Code\'s "prompt" hooks are not supported)',
  }),
  command: z.string().min(1, 'expected the shell command to run, e.g. "./.santra/hooks/check.sh"'),
  /** Seconds before the command is stopped (Claude Code's unit). */
  timeout: z
    .number({ error: 'expected a number of seconds, e.g. 30' })
    .positive('expected a number of seconds greater than 0')
    .max(3_600, 'expected at most 3600 seconds')
    .optional(),
});

const MatcherGroup = z.strictObject({
  /**
   * A regular expression over the tool name (PreToolUse, PostToolUse), the source (SessionStart),
   * the trigger (PreCompact) or the reason (SessionEnd); "" or "*" or absent: everything.
   */
  matcher: z
    .string()
    .refine((text) => text === '*' || isRegExp(text), {
      message: 'expected a regular expression such as "Bash" or "Edit|Write" (or "*" for every tool)',
    })
    .optional(),
  hooks: z.array(CommandHook),
});
export type HookMatcherGroup = z.output<typeof MatcherGroup>;

/** The `hooks` key: Claude Code's shape. Unknown event names are refused with the list. */
export const HooksSchema = z.partialRecord(
  z.enum(HOOK_EVENTS, {
    error: `expected one of the hook events ${HOOK_EVENTS.join(', ')}`,
  }),
  z.array(MatcherGroup),
);
export type HooksConfig = z.output<typeof HooksSchema>;

function isRegExp(text: string): boolean {
  try {
    new RegExp(text);
    return true;
  } catch {
    return false;
  }
}
