import * as z from 'zod';
import { named } from './registry.ts';

export const SkillInfo = named(
  'SkillInfo',
  'One skill the server found (§7.9): a folder with a SKILL.md in the Agent Skills format. Since 0.3.0.',
  z.object({
    name: z.string().describe("The front matter's `name`: what `load_skill` takes."),
    description: z.string().describe("The front matter's `description`, as the model reads it (one line)."),
    source: z
      .enum(['user', 'project'])
      .describe(
        "`user`: the user's `<config dir>/skills/`; `project`: the project's `.santra/skills/` or `.claude/skills/` (untrusted text: guidance, never permission).",
      ),
    file: z
      .string()
      .describe(
        'The SKILL.md: relative to the workspace root for a project skill, absolute for a user skill.',
      ),
  }),
);
export type SkillInfo = z.infer<typeof SkillInfo>;

export const SkillProblemInfo = named(
  'SkillProblemInfo',
  'A SKILL.md that was skipped, and what to fix (§7.9). Since 0.3.0.',
  z.object({
    file: z.string().describe('The file (or folder), shown as `SkillInfo.file` is.'),
    message: z.string().describe('What is wrong with it and how to fix it.'),
  }),
);
export type SkillProblemInfo = z.infer<typeof SkillProblemInfo>;

export const SkillsListParams = named(
  'SkillsListParams',
  'Params of `skills/list` (§7.9). Since 0.3.0.',
  z.object({
    model: z
      .string()
      .optional()
      .describe("The model whose context the listing's share is weighed against; default: the connection's."),
  }),
);
export type SkillsListParams = z.infer<typeof SkillsListParams>;

export const SkillsListResult = named(
  'SkillsListResult',
  'Result of `skills/list` (§7.9). Since 0.3.0.',
  z.object({
    skills: z.array(SkillInfo).describe('Every skill that loads, sorted by name; a name appears once.'),
    problems: z
      .array(SkillProblemInfo)
      .describe('Files skipped, each with what to fix; the others still load.'),
    directories: z
      .array(z.string())
      .describe('The folders searched, in precedence order (an earlier one wins a name).'),
    listed: z
      .number()
      .int()
      .nonnegative()
      .describe("How many of `skills` fit in the model's listing (the rest load by exact name)."),
    listingBudgetChars: z
      .number()
      .int()
      .positive()
      .describe('The characters the listing may take: a set share of the context window.'),
  }),
);
export type SkillsListResult = z.infer<typeof SkillsListResult>;
