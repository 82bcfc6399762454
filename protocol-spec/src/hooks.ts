import * as z from 'zod';
import { named } from './registry.ts';

/** The hook events, Claude Code's nine (§7.8.2). */
export const HookEventName = named(
  'HookEventName',
  "A hook event, with Claude Code's names (§7.8.2): `PreToolUse`, `PostToolUse`, `UserPromptSubmit`, `Stop`, `SubagentStop`, `SessionStart`, `SessionEnd`, `PreCompact`, `Notification`. Since 0.3.0.",
  z.enum([
    'PreToolUse',
    'PostToolUse',
    'UserPromptSubmit',
    'Stop',
    'SubagentStop',
    'SessionStart',
    'SessionEnd',
    'PreCompact',
    'Notification',
  ]),
);
export type HookEventName = z.infer<typeof HookEventName>;

export const HookInfo = named(
  'HookInfo',
  'One hook command the server knows of, and where it comes from (§7.8.2). Since 0.3.0.',
  z.object({
    event: HookEventName,
    matcher: z.string().optional().describe('As written; absent: every tool (or source, trigger…).'),
    command: z.string().describe('The shell command, as written.'),
    timeoutSeconds: z.number().positive().describe('When it is stopped (60 unless the hook says).'),
    source: z
      .enum(['user', 'project'])
      .describe("`user`: the user's config file; `project`: the project's `.santra/settings.json`."),
    file: z.string().describe('The absolute path of the file that defines it.'),
    trusted: z
      .boolean()
      .describe(
        "Whether it runs: always true for the user's own hooks; for a project hook, whether a person trusted this exact definition (§7.7). An untrusted project hook is asked about when its event first fires.",
      ),
  }),
);
export type HookInfo = z.infer<typeof HookInfo>;

export const HooksListParams = named('HooksListParams', 'Params of `hooks/list`: none.', z.object({}));
export type HooksListParams = z.infer<typeof HooksListParams>;

export const HooksListResult = named(
  'HooksListResult',
  'Result of `hooks/list` (§7.8.2). Since 0.3.0.',
  z.object({
    hooks: z.array(HookInfo).describe("Every hook, the user's first, in the order they are defined."),
    problems: z
      .array(z.string())
      .describe('Why hooks of the project file do not run (it is not valid JSON, or not in the schema).'),
  }),
);
export type HooksListResult = z.infer<typeof HooksListResult>;
