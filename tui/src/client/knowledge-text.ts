/**
 * The skills (`skills/list`, §7.9) and the memory files (`memory/show`, §7.10) as text, shared by
 * `santra skills`, `santra memory` and the terminal UI's `/skills` and `/memory`.
 */
import type { ResultOf } from '#protocol';

type SkillsListResult = ResultOf<'skills/list'>;
type MemoryShowResult = ResultOf<'memory/show'>;

export function skillsText(result: SkillsListResult): string {
  const lines: string[] = [];
  if (result.skills.length === 0)
    lines.push(
      'No skills. A skill is a folder with a SKILL.md (front matter name: and description:, then instructions) in one of:',
      ...result.directories.map((dir) => `  ${dir}`),
    );
  for (const skill of result.skills)
    lines.push(
      `${skill.name.padEnd(24)} ${skill.source.padEnd(8)} ${skill.description}`,
      `${''.padEnd(24)} ${''.padEnd(8)} ${skill.file}`,
    );
  if (result.listed < result.skills.length)
    lines.push(
      '',
      `The model's listing holds ${result.listed} of ${result.skills.length} skills (it keeps to ${result.listingBudgetChars} characters of the context); the others load by exact name.`,
    );
  for (const problem of result.problems) lines.push(`skipped ${problem.file}: ${problem.message}`);
  if (result.skills.some((skill) => skill.source === 'project'))
    lines.push(
      '',
      "Project skills come with the repository: the model may read them, but they approve nothing; their scripts run only through run_command's approval (docs/skills.md).",
    );
  return `${lines.join('\n')}\n`;
}

export function memoryText(result: MemoryShowResult): string {
  const lines: string[] = [];
  for (const file of result.files) {
    const what = file.scope === 'project' ? 'Project memory' : 'Your memory';
    lines.push(
      `${what}: ${file.path}${file.exists ? ` (${file.entries} entr${file.entries === 1 ? 'y' : 'ies'})` : ' (not created yet)'}`,
    );
    if (file.exists && file.text.trim() !== '')
      lines.push(
        '',
        ...file.text
          .trimEnd()
          .split('\n')
          .map((line) => `  ${line}`),
        '',
      );
  }
  lines.push(
    result.autoExtract
      ? 'Facts are proposed after each run (memory.autoExtract is on; set it to false to stop); secrets and text from files are never stored.'
      : 'Facts are added only by you (memory.autoExtract is off, or SANTRA_MEMORY_AUTO_EXTRACT=0): santra memory add "…", or edit the files.',
  );
  return `${lines.join('\n')}\n`;
}
