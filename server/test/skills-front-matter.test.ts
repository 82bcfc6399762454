/**
 * The SKILL.md front matter subset (skills/front-matter.ts) and the catalog read from real
 * folders (skills/skills.ts): what loads, what is refused with a message naming the file and the
 * fix, and the listing's bound (skills/listing.ts) with 500 skills.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { parseFrontMatter } from '../src/skills/front-matter.ts';
import { listingBudget, skillListing } from '../src/skills/listing.ts';
import { loadSkills } from '../src/skills/skills.ts';

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'santra-skills-'));
  dirs.push(dir);
  return dir;
}
function skill(root: string, folder: string, text: string): void {
  mkdirSync(join(root, folder), { recursive: true });
  writeFileSync(join(root, folder, 'SKILL.md'), text);
}

describe('SKILL.md front matter', () => {
  test('plain, quoted and block values; the body after it', () => {
    const parsed = parseFrontMatter(
      [
        '---',
        'name: pdf-forms',
        '# a comment',
        'description: "Fills PDF forms: \\"quoted\\" text"',
        "license: 'it''s MIT'",
        'notes: |',
        '  line one',
        '  line two',
        'folded: >-',
        '  one',
        '  two',
        'allowed-tools: [Read, Bash]',
        '---',
        '',
        '# Steps',
        'Run scripts/fill.py.',
      ].join('\n'),
    );
    assert.ok(parsed.ok);
    assert.equal(parsed.fields.name, 'pdf-forms');
    assert.equal(parsed.fields.description, 'Fills PDF forms: "quoted" text');
    assert.equal(parsed.fields.license, "it's MIT");
    assert.equal(parsed.fields.notes, 'line one\nline two');
    assert.equal(parsed.fields.folded, 'one two');
    assert.equal(parsed.fields['allowed-tools'], '[Read, Bash]');
    assert.equal(parsed.body, '# Steps\nRun scripts/fill.py.');
  });

  test('what it cannot read is refused, saying where and how to fix it', () => {
    const cases: Array<[string, RegExp]> = [
      ['# no front matter\n', /does not start with a front matter block/],
      ['---\nname: x\n', /not closed: add a line "---"/],
      ['---\nname x\n---\n', /line 2 is not "key: value"/],
      ['---\nname: "open\n---\n', /not closed/],
      ['---\nname: a\nname: b\n---\n', /"name" is given twice/],
      ['---\n  stray: 1\n---\n', /indented but belongs to no field/],
      ['---\nname: "bad \\q"\n---\n', /unknown escape/],
    ];
    for (const [text, message] of cases) {
      const parsed = parseFrontMatter(text);
      assert.equal(parsed.ok, false, text);
      if (!parsed.ok) assert.match(parsed.message, message, text);
    }
  });
});

describe('the skills catalog', () => {
  test('user, .santra and .claude skills load; bad ones are named with the fix; the others still load', async () => {
    const workspace = tempDir();
    const config = tempDir();
    skill(join(config, 'skills'), 'mine', "---\nname: mine\ndescription: The user's own skill.\n---\nBody.");
    skill(
      join(workspace, '.santra/skills'),
      'pdf-forms',
      '---\nname: pdf-forms\ndescription: Fills PDF forms.\n---\nBody.',
    );
    skill(
      join(workspace, '.claude/skills'),
      'legacy',
      '---\nname: legacy\ndescription: From Claude Code.\n---\n',
    );
    skill(join(workspace, '.santra/skills'), 'broken-yaml', '---\nname: "broken\n---\n');
    skill(join(workspace, '.santra/skills'), 'no-name', '---\ndescription: nameless\n---\n');
    skill(join(workspace, '.santra/skills'), 'bad-name', '---\nname: Bad Name\ndescription: x\n---\n');
    skill(join(workspace, '.santra/skills'), 'no-description', '---\nname: quiet\n---\n');
    // A project skill named like the user's: the user's wins, and the shadowed one is said.
    skill(
      join(workspace, '.claude/skills'),
      'mine',
      '---\nname: mine\ndescription: A project impostor.\n---\n',
    );
    // A folder without SKILL.md is not a skill, and not a problem.
    mkdirSync(join(workspace, '.santra/skills/just-a-folder'), { recursive: true });

    const catalog = await loadSkills({ workspaceRoot: workspace, configDir: config });
    assert.deepEqual(
      catalog.skills.map((s) => [s.name, s.source]),
      [
        ['legacy', 'project'],
        ['mine', 'user'],
        ['pdf-forms', 'project'],
      ],
    );
    assert.equal(
      catalog.skills.find((s) => s.name === 'pdf-forms')?.file,
      '.santra/skills/pdf-forms/SKILL.md',
    );
    const problem = (file: string) => catalog.problems.find((p) => p.file === file)?.message ?? '';
    assert.match(problem('.santra/skills/broken-yaml/SKILL.md'), /not closed/);
    assert.match(problem('.santra/skills/no-name/SKILL.md'), /has no name: add a line like "name: my-skill"/);
    assert.match(problem('.santra/skills/bad-name/SKILL.md'), /lowercase letters, digits and hyphens/);
    assert.match(problem('.santra/skills/no-description/SKILL.md'), /no description: add "description: …"/);
    assert.match(
      problem('.claude/skills/mine/SKILL.md'),
      /already loaded from .*mine\/SKILL\.md, which wins/,
    );
    assert.equal(catalog.problems.length, 5);
  });

  test('a project skill linked to a file outside the workspace is not followed', async () => {
    const workspace = tempDir();
    const outside = tempDir();
    writeFileSync(join(outside, 'SKILL.md'), '---\nname: sneaky\ndescription: from elsewhere\n---\nsecret');
    mkdirSync(join(workspace, '.santra/skills/sneaky'), { recursive: true });
    symlinkSync(join(outside, 'SKILL.md'), join(workspace, '.santra/skills/sneaky/SKILL.md'));
    const catalog = await loadSkills({ workspaceRoot: workspace, configDir: tempDir() });
    assert.deepEqual(catalog.skills, []);
    assert.match(catalog.problems[0]?.message ?? '', /symbolic link leading outside the workspace/);
  });

  test('500 skills: the listing stays within its share of the context and says how many are left out', async () => {
    const workspace = tempDir();
    for (let i = 0; i < 500; i++) {
      const name = `skill-${String(i).padStart(3, '0')}`;
      skill(
        join(workspace, '.santra/skills'),
        name,
        `---\nname: ${name}\ndescription: ${'Does a particular thing for a particular kind of task. '.repeat(6)}\n---\nBody ${i}.`,
      );
    }
    const catalog = await loadSkills({ workspaceRoot: workspace, configDir: tempDir() });
    assert.equal(catalog.skills.length, 500);
    for (const contextWindow of [8_000, 200_000, 1_000_000]) {
      const listing = skillListing(catalog, contextWindow);
      assert.ok(listing.text !== undefined);
      assert.ok(
        listing.text.length <= listingBudget(contextWindow),
        `${listing.text.length} chars for a budget of ${listingBudget(contextWindow)}`,
      );
      assert.ok(listing.shown > 0 && listing.shown < 500, `${listing.shown} shown`);
      assert.equal(listing.shown + listing.omitted, 500);
      assert.match(listing.text, new RegExp(`\\(${listing.omitted} more skills not listed here for room`));
      // Descriptions are cut to one short line each; bodies are never in the listing.
      assert.doesNotMatch(listing.text, /Body \d+\./);
    }
    // A few skills fit whole.
    const few = skillListing({ skills: catalog.skills.slice(0, 3), problems: [] }, 200_000);
    assert.equal(few.omitted, 0);
    assert.doesNotMatch(few.text ?? '', /not listed here/);
  });
});
