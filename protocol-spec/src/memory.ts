import * as z from 'zod';
import { named } from './registry.ts';

export const MemoryScope = named(
  'MemoryScope',
  'Which memory file (§7.10): `project` (`.santra/memory.md` in the workspace) or `user` (`<config dir>/memory.md`). Since 0.3.0.',
  z.enum(['project', 'user']),
);
export type MemoryScope = z.infer<typeof MemoryScope>;

export const MemoryFileInfo = named(
  'MemoryFileInfo',
  'One memory file and what it holds (§7.10). Since 0.3.0.',
  z.object({
    scope: MemoryScope,
    path: z.string().describe('The absolute path: open it in an editor to change what is remembered.'),
    exists: z.boolean(),
    text: z.string().describe("The file's text ('' when it does not exist)."),
    entries: z.number().int().nonnegative().describe('Its entries: the lines that start with "- ".'),
  }),
);
export type MemoryFileInfo = z.infer<typeof MemoryFileInfo>;

export const MemoryShowParams = named('MemoryShowParams', 'Params of `memory/show`: none.', z.object({}));
export type MemoryShowParams = z.infer<typeof MemoryShowParams>;

export const MemoryShowResult = named(
  'MemoryShowResult',
  'Result of `memory/show` (§7.10). Since 0.3.0.',
  z.object({
    files: z.array(MemoryFileInfo).describe('The project file, then the user file.'),
    autoExtract: z.boolean().describe('Whether facts are proposed after runs (`memory.autoExtract`).'),
  }),
);
export type MemoryShowResult = z.infer<typeof MemoryShowResult>;

export const MemoryAddParams = named(
  'MemoryAddParams',
  'Params of `memory/add` (§7.10). Since 0.3.0.',
  z.object({
    scope: MemoryScope.default('project').describe('Which file; default `project`.'),
    text: z.string().min(1).max(2000).describe('The fact to remember: one line (line breaks become spaces).'),
  }),
);
export type MemoryAddParams = z.infer<typeof MemoryAddParams>;

export const MemoryAddResult = named(
  'MemoryAddResult',
  'Result of `memory/add` (§7.10). Since 0.3.0.',
  z.object({
    file: MemoryFileInfo.describe('The file after the write.'),
    added: z
      .string()
      .optional()
      .describe('The entry as stored (secrets redacted); absent when the file already held it.'),
    dropped: z
      .array(z.string())
      .describe('Entries removed to keep the file under its size cap (the oldest first).'),
  }),
);
export type MemoryAddResult = z.infer<typeof MemoryAddResult>;
