/**
 * Skills in the Agent Skills format: a folder holding a `SKILL.md` (YAML front matter with `name`
 * and `description`, then instructions) and whatever scripts and files the instructions use. They
 * are found in the user's `<config dir>/skills/`, the project's `.santra/skills/` and — so people
 * keep what they wrote for Claude Code — the project's `.claude/skills/`.
 *
 * Only a skill's name and description go into the prompt (listing.ts); the model loads the body
 * with `load_skill` when a task calls for it. A project's skills are written by whoever wrote the
 * repository, so they are untrusted text like any file of it: they are framed as such, they change
 * no setting and widen no permission, and their scripts run only through run_command's approval.
 *
 * Loading never fails: a SKILL.md that cannot be used is skipped and named in `problems`, saying
 * what to fix, and the others load.
 */
import { constants } from 'node:fs';
import { open, readdir, realpath } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { describeFsError, errorCode } from '../support/errno.ts';
import { parseFrontMatter } from './front-matter.ts';

export type SkillSource = 'user' | 'project';

export interface Skill {
  name: string;
  description: string;
  source: SkillSource;
  /** The folder holding SKILL.md, absolute. */
  dir: string;
  /** SKILL.md as shown to people and the model: relative to the workspace for a project skill. */
  file: string;
}

export interface SkillProblem {
  /** The SKILL.md (or folder) as shown. */
  file: string;
  /** What is wrong and how to fix it. */
  message: string;
}

export interface SkillCatalog {
  /** Sorted by name; a name is listed once (the user's own first, then .santra/, then .claude/). */
  skills: Skill[];
  problems: SkillProblem[];
}

export interface SkillSources {
  workspaceRoot: string;
  /** Santra's config directory (`configDir(env)`, which honours SANTRA_HOME). */
  configDir: string;
}

/** The folders searched, in precedence order. */
export function skillDirectories(sources: SkillSources): Array<{ dir: string; source: SkillSource }> {
  return [
    { dir: join(sources.configDir, 'skills'), source: 'user' },
    { dir: join(sources.workspaceRoot, '.santra', 'skills'), source: 'project' },
    { dir: join(sources.workspaceRoot, '.claude', 'skills'), source: 'project' },
  ];
}

/** Bytes of a SKILL.md read at most; a longer one is cut (load_skill says so). */
export const MAX_SKILL_FILE_BYTES = 256 * 1024;
/** Skill folders read per directory at most: a folder of thousands is a mistake, not a library. */
export const MAX_SKILLS_PER_DIRECTORY = 2000;
/** SKILL.md files read at once. */
const READ_CONCURRENCY = 16;
/** The Agent Skills format's limits. */
const NAME_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;
const MAX_DESCRIPTION_CHARS = 1024;

export async function loadSkills(sources: SkillSources): Promise<SkillCatalog> {
  const catalog: SkillCatalog = { skills: [], problems: [] };
  const byName = new Map<string, Skill>();
  for (const { dir, source } of skillDirectories(sources)) {
    for (const found of await readSkillDirectory(dir, source, sources.workspaceRoot, catalog.problems)) {
      const earlier = byName.get(found.name);
      if (earlier !== undefined) {
        catalog.problems.push({
          file: found.file,
          message: `a skill named "${found.name}" is already loaded from ${earlier.file}, which wins; rename one of them (the name: field) to use both`,
        });
        continue;
      }
      byName.set(found.name, found);
    }
  }
  catalog.skills = [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
  return catalog;
}

/** A skill's SKILL.md read again (the user may have edited it since the listing): its body. */
export async function readSkillBody(
  skill: Skill,
  workspaceRoot: string,
): Promise<{ body: string; truncated: boolean } | { message: string }> {
  const read = await readSkillFile(join(skill.dir, 'SKILL.md'), skill.source, workspaceRoot);
  if (read === undefined) return { message: `${skill.file} is gone (deleted since the skills were listed)` };
  if ('message' in read) return read;
  const parsed = parseFrontMatter(read.text);
  if (!parsed.ok) return { message: `${skill.file}: ${parsed.message}` };
  return { body: parsed.body, truncated: read.truncated };
}

async function readSkillDirectory(
  dir: string,
  source: SkillSource,
  workspaceRoot: string,
  problems: SkillProblem[],
): Promise<Skill[]> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    const code = errorCode(error);
    if (code !== 'ENOENT' && code !== 'ENOTDIR')
      problems.push({
        file: shown(dir, source, workspaceRoot),
        message: `it cannot be read: ${describeFsError(code)}`,
      });
    return [];
  }
  const folders = entries
    .filter((entry) => entry.isDirectory() || entry.isSymbolicLink())
    .map((entry) => entry.name)
    .sort();
  if (folders.length > MAX_SKILLS_PER_DIRECTORY)
    problems.push({
      file: shown(dir, source, workspaceRoot),
      message: `it holds ${folders.length} folders; the first ${MAX_SKILLS_PER_DIRECTORY} (by name) are read`,
    });
  // Read a few at a time (they are read for every prompt), kept in name order.
  const chosen = folders.slice(0, MAX_SKILLS_PER_DIRECTORY);
  const reads = new Array<FileRead>(chosen.length);
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < chosen.length; index = next++)
      reads[index] = await readSkillFile(
        join(dir, chosen[index] as string, 'SKILL.md'),
        source,
        workspaceRoot,
      );
  };
  await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, chosen.length) }, worker));
  const skills: Skill[] = [];
  for (const [index, folder] of chosen.entries()) {
    const read = reads[index];
    if (read === undefined) continue;
    const skillDir = join(dir, folder);
    const file = shown(join(skillDir, 'SKILL.md'), source, workspaceRoot);
    if ('message' in read) {
      problems.push({ file, message: read.message });
      continue;
    }
    const skill = skillOf(read.text, { dir: skillDir, source, file });
    if ('message' in skill) problems.push({ file, message: skill.message });
    else skills.push(skill);
  }
  return skills;
}

function skillOf(text: string, where: Pick<Skill, 'dir' | 'source' | 'file'>): Skill | { message: string } {
  const parsed = parseFrontMatter(text);
  if (!parsed.ok) return { message: parsed.message };
  const name = parsed.fields.name?.trim() ?? '';
  const description = (parsed.fields.description ?? '').replace(/\s+/g, ' ').trim();
  if (name === '')
    return {
      message:
        'its front matter has no name: add a line like "name: my-skill" (lowercase letters, digits and hyphens)',
    };
  if (!NAME_PATTERN.test(name))
    return {
      message: `its name "${name.slice(0, 80)}" is not a skill name: use 1 to 64 lowercase letters, digits and hyphens, not starting or ending with a hyphen (e.g. "pdf-forms")`,
    };
  if (description === '')
    return {
      message:
        'its front matter has no description: add "description: …" saying what the skill does and when to use it (the model chooses skills by it)',
    };
  if (description.length > MAX_DESCRIPTION_CHARS)
    return {
      message: `its description is ${description.length} characters; the Agent Skills format allows ${MAX_DESCRIPTION_CHARS}: shorten it and move the detail into the body`,
    };
  return { name, description, ...where };
}

type FileRead = { text: string; truncated: boolean } | { message: string } | undefined;

/**
 * A SKILL.md's text; undefined when the folder has none. A project's file must stay inside the
 * workspace: a link leading out is refused (the user's own config directory may link anywhere).
 */
async function readSkillFile(file: string, source: SkillSource, workspaceRoot: string): Promise<FileRead> {
  let real: string;
  try {
    real = await realpath(file);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    return { message: `it cannot be read: ${describeFsError(code)}` };
  }
  if (source === 'project') {
    const root = await realpath(workspaceRoot).catch(() => workspaceRoot);
    const rel = relative(root, real);
    if (rel === '' || rel.startsWith(`..${sep}`) || rel === '..' || rel.startsWith(sep))
      return { message: 'it is a symbolic link leading outside the workspace, which is not followed' };
  }
  let handle;
  try {
    handle = await open(real, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    return { message: `it cannot be read: ${describeFsError(errorCode(error))}` };
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) return { message: 'SKILL.md is not a regular file' };
    const bytes = Buffer.alloc(Math.min(info.size, MAX_SKILL_FILE_BYTES));
    const { bytesRead } = await handle.read(bytes, 0, bytes.length, 0);
    const got = bytes.subarray(0, bytesRead);
    if (got.includes(0)) return { message: 'it is binary (it holds NUL bytes), not Markdown' };
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(got);
    } catch {
      // A cut in the middle of a character is not a bad file: drop the partial character.
      if (info.size <= MAX_SKILL_FILE_BYTES) return { message: 'it is not UTF-8 text' };
      text = new TextDecoder('utf-8').decode(got).replace(/\uFFFD+$/, '');
    }
    return { text, truncated: info.size > MAX_SKILL_FILE_BYTES };
  } catch (error) {
    return { message: `it cannot be read: ${describeFsError(errorCode(error))}` };
  } finally {
    await handle.close().catch(() => {});
  }
}

/** A path as people see it: relative to the workspace for the project's, absolute for the user's. */
function shown(path: string, source: SkillSource, workspaceRoot: string): string {
  return source === 'project' ? relative(workspaceRoot, path) : path;
}
