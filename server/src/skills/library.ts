/**
 * The skills as load_skill reads them (tools/load-skill.ts): looked up by name in the catalog read
 * for the run, the body read from disk at the time of the call, with the folder's other files named.
 */
import { readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import type { LoadedSkill, SkillLibrary } from '../tools/load-skill.ts';
import { readSkillBody, type SkillCatalog } from './skills.ts';

/** Files of a skill's folder named to the model at most. */
const MAX_LISTED_FILES = 40;

export function skillLibrary(catalog: () => Promise<SkillCatalog>, workspaceRoot: string): SkillLibrary {
  return {
    async load(name) {
      const { skills } = await catalog();
      const skill = skills.find((candidate) => candidate.name === name);
      if (skill === undefined)
        return {
          message:
            skills.length === 0
              ? `There is no skill "${name}": no skills are installed.`
              : `There is no skill "${name}". The skills: ${skills
                  .slice(0, 50)
                  .map((each) => each.name)
                  .join(', ')}${skills.length > 50 ? ` and ${skills.length - 50} more` : ''}.`,
        };
      const read = await readSkillBody(skill, workspaceRoot);
      if ('message' in read) return { message: `The skill "${name}" cannot be loaded: ${read.message}` };
      const files = await otherFiles(skill.dir);
      const inside = !relative(workspaceRoot, skill.dir).startsWith('..');
      const loaded: LoadedSkill = {
        name: skill.name,
        source: skill.source,
        file: skill.file,
        dir: inside ? relative(workspaceRoot, skill.dir) : skill.dir,
        body: read.body,
        truncated: read.truncated,
        files: files.slice(0, MAX_LISTED_FILES),
        moreFiles: Math.max(0, files.length - MAX_LISTED_FILES),
      };
      return loaded;
    },
  };
}

/** The folder's files besides SKILL.md, relative to it, two levels deep (scripts/, references/). */
async function otherFiles(dir: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (at: string, depth: number) => {
    const entries = await readdir(at, { withFileTypes: true }).catch(() => []);
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      if (found.length > MAX_LISTED_FILES * 4) return;
      const path = join(at, entry.name);
      if (entry.isDirectory() && depth < 2) await walk(path, depth + 1);
      else if (entry.isFile() && !(depth === 0 && entry.name === 'SKILL.md')) found.push(relative(dir, path));
    }
  };
  await walk(dir, 0);
  return found;
}
