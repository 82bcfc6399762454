import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmod, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import { promisify } from 'node:util';
import { tempDir } from '../../scripts/temp-dirs.ts';
import {
  type AgentProblem,
  defaultAgentTools,
  type LoadedAgents,
  loadCustomAgents,
  MAX_AGENT_FILE_BYTES,
} from '../src/agent/custom-agents.ts';

import { errorCode } from '../src/support/errno.ts';
import { allTools } from '../src/tools/registry.ts';
import type { Tool } from '../src/tools/types.ts';

const KNOWN_TOOLS: readonly Pick<Tool, 'name' | 'kind'>[] = allTools();
const DEFAULT_AGENT_TOOLS = defaultAgentTools(KNOWN_TOOLS);
const BUILT_IN_IDS = ['general', 'explorer'];
const run = promisify(execFile);

function agent(id: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    name: `Agent ${id}`,
    description: `Does ${id} things.`,
    systemPrompt: `You are ${id}.`,
    ...extra,
  };
}

/** A fresh workspace under a fresh parent (so tests can place files "outside" it). */
async function workspace(files: Record<string, unknown> = {}): Promise<{ parent: string; root: string }> {
  const parent = tempDir('santra-agents-');
  const root = join(parent, 'ws');
  await mkdir(join(root, '.agents'), { recursive: true });
  for (const [name, body] of Object.entries(files)) {
    const path = join(root, name);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, typeof body === 'string' ? body : JSON.stringify(body, null, 2));
  }
  return { parent, root };
}

function load(
  root: string,
  tools: readonly Pick<Tool, 'name' | 'kind'>[] = KNOWN_TOOLS,
): Promise<LoadedAgents> {
  return loadCustomAgents(root, { tools, builtInIds: BUILT_IN_IDS });
}

/** Asserts the valid `keep` agent still loaded and returns the problems. */
function problemsBeside(result: LoadedAgents): AgentProblem[] {
  assert.deepEqual(
    result.agents.map((a) => a.id),
    ['keep'],
    'the valid file still loads',
  );
  return result.problems;
}

function assertOneProblem(
  problems: AgentProblem[],
  file: string,
  field: string | undefined,
  message: RegExp,
) {
  assert.equal(problems.length, 1, JSON.stringify(problems));
  const [problem] = problems as [AgentProblem];
  assert.equal(problem.file, file);
  assert.equal(problem.field, field);
  assert.match(problem.message, message);
}

describe('loadCustomAgents: valid files', () => {
  test('loads agents sorted by id, applying defaults', async () => {
    const { root } = await workspace({
      '.agents/1-zeta.json': agent('zeta', { toolNames: ['read_file', 'write_file'], canBeSpawned: false }),
      '.agents/2-alpha.json': agent('alpha'),
    });
    const result = await load(root);
    assert.deepEqual(result.problems, []);
    assert.deepEqual(result.agents, [
      {
        id: 'alpha',
        name: 'Agent alpha',
        description: 'Does alpha things.',
        systemPrompt: 'You are alpha.',
        toolNames: [...DEFAULT_AGENT_TOOLS],
        canBeSpawned: true,
        source: '.agents/2-alpha.json',
      },
      {
        id: 'zeta',
        name: 'Agent zeta',
        description: 'Does zeta things.',
        systemPrompt: 'You are zeta.',
        toolNames: ['read_file', 'write_file'],
        canBeSpawned: false,
        source: '.agents/1-zeta.json',
      },
    ]);
  });

  test('default tools the runtime does not offer are left out; repeated tool names count once', async () => {
    const { root } = await workspace({
      '.agents/a.json': agent('plain'),
      '.agents/b.json': agent('twice', { toolNames: ['read_file', 'list_dir', 'read_file'] }),
    });
    const known = KNOWN_TOOLS.filter((tool) => tool.name !== 'set_output');
    const result = await load(root, known);
    assert.deepEqual(result.problems, []);
    assert.deepEqual(
      result.agents[0]?.toolNames,
      DEFAULT_AGENT_TOOLS.filter((name) => name !== 'set_output'),
    );
    assert.deepEqual(result.agents[1]?.toolNames, ['read_file', 'list_dir']);
  });

  test('a byte-order mark and an empty tool list are accepted', async () => {
    const { root } = await workspace({
      '.agents/bom.json': `\uFEFF${JSON.stringify(agent('bom', { toolNames: [] }))}`,
    });
    const result = await load(root);
    assert.deepEqual(result.problems, []);
    assert.deepEqual(result.agents[0]?.toolNames, []);
  });

  test('no .agents directory (or a file named .agents) means no agents and no problems', async () => {
    const parent = tempDir('santra-agents-');
    assert.deepEqual(await load(parent), { agents: [], problems: [] });
    await writeFile(join(parent, '.agents'), 'not a directory');
    assert.deepEqual(await load(parent), { agents: [], problems: [] });
    assert.deepEqual(await load(join(parent, 'missing')), { agents: [], problems: [] });
  });

  test('ignores other files, hidden files, subdirectories and directories named *.json', async () => {
    const { root } = await workspace({
      '.agents/keep.json': agent('keep'),
      '.agents/README.md': '# not an agent',
      '.agents/keep.json.bak': '{ broken',
      '.agents/.hidden.json': '{ broken',
      '.agents/nested/inner.json': agent('inner'),
      '.agents/folder.json/x.json': agent('folder'),
    });
    // An Emacs lock file: a dangling symlink named like an agent file.
    await symlink('user@host.1234', join(root, '.agents', '.#keep.json'));
    const result = await load(root);
    assert.deepEqual(result.problems, []);
    assert.deepEqual(
      result.agents.map((a) => a.id),
      ['keep'],
    );
  });

  test('a symlink to a file inside the workspace loads; so does a symlinked workspace root', async () => {
    const { parent, root } = await workspace({ 'shared/agent.json': agent('linked') });
    await symlink(join('..', 'shared', 'agent.json'), join(root, '.agents', 'linked.json'));
    await symlink(root, join(parent, 'ws-link'));
    for (const path of [root, join(parent, 'ws-link')]) {
      const result = await load(path);
      assert.deepEqual(result.problems, []);
      assert.equal(result.agents[0]?.source, '.agents/linked.json');
    }
  });
});

describe('loadCustomAgents: invalid files are reported and skipped', () => {
  test('not JSON: the reason, line and column', async () => {
    const { root } = await workspace({
      '.agents/keep.json': agent('keep'),
      '.agents/bad.json': '{\n  "id": "bad"\n  "name": "Bad"\n}\n',
    });
    const problems = problemsBeside(await load(root));
    assertOneProblem(
      problems,
      '.agents/bad.json',
      undefined,
      /not valid JSON: expected "," between entries at line 3, column 3/,
    );
  });

  test('an empty file', async () => {
    const { root } = await workspace({ '.agents/keep.json': agent('keep'), '.agents/empty.json': '  \n' });
    const problems = problemsBeside(await load(root));
    assertOneProblem(problems, '.agents/empty.json', undefined, /is empty; expected a JSON object/);
  });

  test('not an object at the top level', async () => {
    const { root } = await workspace({
      '.agents/keep.json': agent('keep'),
      '.agents/list.json': [agent('x')],
    });
    const problems = problemsBeside(await load(root));
    assertOneProblem(problems, '.agents/list.json', undefined, /expected a JSON object .*, got an array/);
  });

  test('wrong types: each field named, what was expected, and never the value', async () => {
    const { root } = await workspace({
      '.agents/keep.json': agent('keep'),
      '.agents/types.json': agent('types', {
        name: 42,
        toolNames: 'SECRET-ISH-VALUE',
        canBeSpawned: 'SECRET-ISH-VALUE',
      }),
    });
    const problems = problemsBeside(await load(root));
    assert.deepEqual(
      problems.map(({ file, field }) => ({ file, field })),
      [
        { file: '.agents/types.json', field: 'name' },
        { file: '.agents/types.json', field: 'toolNames' },
        { file: '.agents/types.json', field: 'canBeSpawned' },
      ],
    );
    assert.match(problems[0]?.message ?? '', /^expected a string, got a number$/);
    assert.match(problems[1]?.message ?? '', /^expected an array of tool names .*, got a string$/);
    assert.match(problems[2]?.message ?? '', /^expected true or false, got a string$/);
    assert.ok(problems.every((p) => !p.message.includes('SECRET')));
  });

  test('a missing required field and an empty one', async () => {
    const { systemPrompt: _omitted, ...noPrompt } = agent('noprompt');
    const { root } = await workspace({
      '.agents/keep.json': agent('keep'),
      '.agents/missing.json': noPrompt,
      '.agents/blank.json': agent('blank', { description: '   ' }),
    });
    const problems = problemsBeside(await load(root));
    assert.deepEqual(problems, [
      { file: '.agents/blank.json', field: 'description', message: problems[0]?.message },
      { file: '.agents/missing.json', field: 'systemPrompt', message: 'is required (expected a string)' },
    ]);
    assert.match(problems[0]?.message ?? '', /^must not be empty \(expected a sentence/);
  });

  test('an unknown field: a near miss is guessed, anything else lists the fields', async () => {
    const { root } = await workspace({
      '.agents/keep.json': agent('keep'),
      '.agents/typo.json': agent('typo', { toolnames: ['read_file'], colour: 'red' }),
    });
    const problems = problemsBeside(await load(root));
    assert.deepEqual(problems, [
      { file: '.agents/typo.json', field: 'toolnames', message: 'unknown field (did you mean "toolNames"?)' },
      {
        file: '.agents/typo.json',
        field: 'colour',
        message:
          'unknown field (expected only: id, name, description, systemPrompt, toolNames, canBeSpawned)',
      },
    ]);
  });

  test('a bad id: wrong characters, too short, too long', async () => {
    const { root } = await workspace({
      '.agents/keep.json': agent('keep'),
      '.agents/a.json': agent('Security-Reviewer'),
      '.agents/b.json': agent('x'),
      '.agents/c.json': agent('a'.repeat(41)),
    });
    const problems = problemsBeside(await load(root));
    assert.deepEqual(
      problems.map(({ file, field }) => `${file}:${field}`),
      ['.agents/a.json:id', '.agents/b.json:id', '.agents/c.json:id'],
    );
    for (const { message } of problems) assert.match(message, /^expected 2 to 40 lowercase letters, digits/);
  });

  test('an id that is a built-in agent’s', async () => {
    const { root } = await workspace({
      '.agents/keep.json': agent('keep'),
      '.agents/mine.json': agent('general'),
    });
    const problems = problemsBeside(await load(root));
    assertOneProblem(
      problems,
      '.agents/mine.json',
      'id',
      /^"general" is the id of a built-in agent; choose another/,
    );
  });

  test('the same id in two files: the first in file-name order wins', async () => {
    const { root } = await workspace({
      '.agents/b-second.json': agent('keep', { name: 'Second' }),
      '.agents/a-first.json': agent('keep', { name: 'First' }),
    });
    const result = await load(root);
    assert.equal(result.agents.length, 1);
    assert.equal(result.agents[0]?.name, 'First');
    assert.equal(result.agents[0]?.source, '.agents/a-first.json');
    assertOneProblem(
      result.problems,
      '.agents/b-second.json',
      'id',
      /"keep" is already defined by \.agents\/a-first\.json/,
    );
  });

  test('an unknown tool name, with the index of the entry', async () => {
    const { root } = await workspace({
      '.agents/keep.json': agent('keep'),
      '.agents/tools.json': agent('tools', {
        toolNames: ['read_file', 'grep_search', 'raed_file', 'frobnicate'],
      }),
    });
    const problems = problemsBeside(await load(root));
    assert.deepEqual(problems, [
      {
        file: '.agents/tools.json',
        field: 'toolNames[2]',
        message: 'unknown tool "raed_file", did you mean "read_file"?',
      },
      {
        file: '.agents/tools.json',
        field: 'toolNames[3]',
        message: `unknown tool "frobnicate" (known tools: ${KNOWN_TOOLS.map((tool) => tool.name)
          .sort()
          .join(', ')})`,
      },
    ]);
  });

  test('a file over 256 KB is refused; one of exactly 256 KB loads', async () => {
    const sized = (id: string, bytes: number): string => {
      const body = JSON.stringify(agent(id, { systemPrompt: '' }));
      const prompt = 'x'.repeat(bytes - body.length);
      return JSON.stringify(agent(id, { systemPrompt: prompt }));
    };
    const { root } = await workspace({
      '.agents/keep.json': sized('keep', MAX_AGENT_FILE_BYTES),
      '.agents/big.json': sized('big', MAX_AGENT_FILE_BYTES + 1),
    });
    const problems = problemsBeside(await load(root));
    assertOneProblem(
      problems,
      '.agents/big.json',
      undefined,
      /^is too large \(257 KB; the limit is 256 KB\)/,
    );
  });

  test('a symlink to a file outside the workspace is refused, even in a sibling with the same prefix', async () => {
    const { parent, root } = await workspace({ '.agents/keep.json': agent('keep') });
    // "ws-other" starts with "ws": a string-prefix check would wrongly let it in.
    for (const outside of ['elsewhere', 'ws-other']) {
      await mkdir(join(parent, outside));
      await writeFile(join(parent, outside, 'agent.json'), JSON.stringify(agent(outside.replace('-', '_'))));
      await symlink(join(parent, outside, 'agent.json'), join(root, '.agents', `${outside}.json`));
    }
    const problems = problemsBeside(await load(root));
    assert.deepEqual(
      problems.map((p) => p.file),
      ['.agents/elsewhere.json', '.agents/ws-other.json'],
    );
    for (const problem of problems) {
      assert.equal(problem.field, undefined);
      assert.match(problem.message, /symbolic link to a file outside the workspace, which is refused/);
    }
  });

  test('a .agents directory that links outside the workspace is refused file by file', async () => {
    const parent = tempDir('santra-agents-');
    await mkdir(join(parent, 'ws'));
    await mkdir(join(parent, 'shared'));
    await writeFile(join(parent, 'shared', 'a.json'), JSON.stringify(agent('shared')));
    await symlink(join(parent, 'shared'), join(parent, 'ws', '.agents'));
    const result = await load(join(parent, 'ws'));
    assert.deepEqual(result.agents, []);
    assertOneProblem(result.problems, '.agents/a.json', undefined, /outside the workspace/);
  });

  test('a dangling symlink', async () => {
    const { root } = await workspace({ '.agents/keep.json': agent('keep') });
    await symlink('nowhere.json', join(root, '.agents', 'gone.json'));
    const problems = problemsBeside(await load(root));
    assertOneProblem(problems, '.agents/gone.json', undefined, /symbolic link to a file that does not exist/);
  });

  test('an unreadable file (EACCES): the file and the fix are named; the others load', async () => {
    const { root } = await workspace({
      '.agents/keep.json': agent('keep'),
      '.agents/locked.json': agent('locked'),
    });
    await chmod(join(root, '.agents', 'locked.json'), 0o000);
    const problems = problemsBeside(await loadAsItsOwner(root, '.agents/locked.json'));
    assertOneProblem(
      problems,
      '.agents/locked.json',
      undefined,
      /^cannot be read: permission denied \(EACCES\); fix its permissions$/,
    );
  });
});

/**
 * `load(root)` by a process that the permissions of `file` (relative to root) apply to. Root, which
 * CI runs as, reads a file whatever its mode (CAP_DAC_OVERRIDE), so then the loader runs in a
 * child that setpriv (util-linux) has stripped of that capability and of CAP_DAC_READ_SEARCH. The
 * child is still root, so it reaches what root owns (the node binary, the temp dirs, mode 0700),
 * which the user `nobody` could not; but for a file of mode 0 the kernel answers EACCES, as it
 * does for any user.
 */
async function loadAsItsOwner(root: string, file: string): Promise<LoadedAgents> {
  const path = join(root, file);
  const readable = await readFile(path).then(
    () => true,
    (error: unknown) => {
      assert.equal(errorCode(error), 'EACCES', `reading ${path}`);
      return false;
    },
  );
  if (!readable) return load(root);
  const module = new URL('../src/agent/custom-agents.ts', import.meta.url).href;
  const tools = KNOWN_TOOLS.map(({ name, kind }) => ({ name, kind }));
  const script = `
    import { readFileSync } from 'node:fs';
    import { loadCustomAgents } from ${JSON.stringify(module)};
    let readable = true;
    try { readFileSync(${JSON.stringify(path)}); } catch { readable = false; }
    const result = await loadCustomAgents(${JSON.stringify(root)}, {
      tools: ${JSON.stringify(tools)},
      builtInIds: ${JSON.stringify(BUILT_IN_IDS)},
    });
    process.stdout.write(JSON.stringify({ readable, result }));`;
  const drop = '-dac_override,-dac_read_search';
  const child = await run('setpriv', [
    `--inh-caps=${drop}`,
    `--bounding-set=${drop}`,
    '--',
    process.execPath,
    '--input-type=module',
    '-e',
    script,
  ]).catch((error: unknown) => {
    throw new Error(
      `this process reads files whatever their mode (root), so the test needs setpriv (util-linux) to run the loader without that override: ${String(error)}`,
    );
  });
  const { readable: childCouldRead, result } = JSON.parse(child.stdout) as {
    readable: boolean;
    result: LoadedAgents;
  };
  assert.equal(childCouldRead, false, `setpriv ${drop} left the child able to read ${path}`);
  return result;
}

describe('the default tools of an agent file that names none', () => {
  test('are the tools whose kind only reads, and the ways to finish: nothing that edits, runs or asks', () => {
    const byName = new Map(KNOWN_TOOLS.map((tool) => [tool.name, tool.kind]));
    const defaults = defaultAgentTools(KNOWN_TOOLS);
    for (const tool of KNOWN_TOOLS)
      if (tool.kind === 'read' || tool.kind === 'search') assert.ok(defaults.includes(tool.name), tool.name);
    for (const name of defaults)
      assert.ok(
        ['read', 'search'].includes(byName.get(name) ?? '') ||
          ['task_completed', 'set_output'].includes(name),
        `${name} (${byName.get(name)}) is not read-only`,
      );
    assert.ok(defaults.includes('task_completed') && defaults.includes('set_output'));
  });

  test('follow a tool kind: a new read-only tool is a default without a list to update', () => {
    const extra = [...KNOWN_TOOLS, { name: 'read_notes', kind: 'read' as const }];
    assert.ok(defaultAgentTools(extra).includes('read_notes'));
    assert.ok(
      !defaultAgentTools([...KNOWN_TOOLS, { name: 'rm_rf', kind: 'execute' as const }]).includes('rm_rf'),
    );
  });
});

test('the example agent file of docs/tools.md loads as written', async () => {
  const docs = await readFile(new URL('../../docs/tools.md', import.meta.url), 'utf8');
  const section = docs.slice(docs.indexOf('## Custom agent files'));
  const example = /```json\n([\s\S]*?)\n```/.exec(section)?.[1];
  assert.ok(example !== undefined, 'docs/tools.md has an example agent file');
  const { root } = await workspace({ '.agents/security_reviewer.json': example });
  const result = await load(root);
  assert.deepEqual(result.problems, []);
  assert.deepEqual(
    result.agents.map((a) => [a.id, a.toolNames]),
    [['security_reviewer', ['read_file', 'grep_search', 'task_completed', 'set_output']]],
  );
});
