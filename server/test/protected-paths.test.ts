/**
 * Protected locations are put to a person every time: after `allow_all`, under --auto-approve,
 * and marked `protected` so that no client may answer them automatically (protocol §7.3).
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { protectedCommandReason, protectedReason } from '../src/approval/protected-paths.ts';
import type { RecordedRequest } from '../../conformance-tests/src/fake-providers/index.ts';
import { ownTask, suiteHarnesses } from './helpers/run.ts';
import type { Json } from './helpers/wire.ts';

const start = suiteHarnesses();
const APPROVER = { capabilities: { approve: true, ask: true } };
const write = (id: string, path: string, content: string) => ({
  toolCalls: [{ id, name: 'write_file', args: { path, content } }],
});

const PROTECTED_FILES = [
  '.git/hooks/post-checkout',
  '.git/config',
  'vendor/lib/.git/hooks/pre-commit',
  '.GIT/hooks/pre-commit',
  '.husky/pre-commit',
  '.santra/settings.json',
  '.agents/evil.json',
  '.bashrc',
  '.zshrc',
  '.profile',
  '.envrc',
  'sub/.envrc',
];

describe('protected locations', () => {
  test('the rule: which paths and commands are protected', () => {
    for (const path of PROTECTED_FILES)
      assert.ok(protectedReason(path, `/ws/${path}`, '/home/u/.config/santra') !== undefined, path);
    for (const path of [
      'src/git.ts',
      'docs/.github/x.yml',
      'a/.gitignore',
      '.gitattributes',
      'agents/x.json',
    ])
      assert.equal(protectedReason(path, `/ws/${path}`, '/home/u/.config/santra'), undefined, path);
    assert.ok(protectedReason('../x', '/home/u/.config/santra/config.json', '/home/u/.config/santra'));
    for (const command of [
      'echo x > .git/hooks/pre-commit',
      'cp hook .git/hooks/post-checkout',
      'printf x >> ./.git/config',
      'git config core.hooksPath hooks',
      'git -c core.hooksPath=x commit',
      'echo "export X=1" >> .bashrc',
      'cat > .envrc',
      'rm -rf .agents',
      'ln -s /tmp/h .husky/pre-push',
    ])
      assert.ok(protectedCommandReason(command, '/home/u/.config/santra') !== undefined, command);
    for (const command of ['npm test', 'git commit -m "fix .gitignore"', 'make', 'echo .github'])
      assert.equal(protectedCommandReason(command, '/home/u/.config/santra'), undefined, command);
  });

  test('after allow_all every protected write is still asked, marked protected, with a reason', async () => {
    const h = await start(
      'anthropic',
      [
        write('t0', 'a.txt', 'fine'),
        ...PROTECTED_FILES.map((path, i) => write(`t${i + 1}`, path, '#!/bin/sh\ntouch /tmp/pwned\n')),
        write('t99', 'b.txt', 'fine too'),
        { text: 'done' },
      ],
      {},
      undefined,
      APPROVER,
    );
    mkdirSync(join(h.workspace, '.git'));
    const asked: Json[] = [];
    h.client.handle('approve', (params) => {
      asked.push(params);
      return { decision: asked.length === 1 ? 'allow_all' : 'reject' };
    });
    await h.prompt({ text: 'write them' });
    assert.deepEqual(
      asked.map((p) => p.path),
      ['a.txt', ...PROTECTED_FILES],
    );
    assert.equal(asked[0]?.protected, undefined);
    for (const params of asked.slice(1)) {
      assert.equal(params.protected, true, String(params.path));
      assert.equal(typeof params.protectedReason, 'string');
    }
    for (const path of PROTECTED_FILES) assert.equal(existsSync(join(h.workspace, path)), false, path);
    assert.equal(existsSync(join(h.workspace, 'b.txt')), true, 'unprotected writes are allowed');
  });

  test('under --auto-approve a protected write is asked (and refused when no client can answer)', async () => {
    for (const capabilities of [{ approve: true }, {}]) {
      const h = await start(
        'anthropic',
        [write('t1', 'a.txt', 'fine'), write('t2', '.git/hooks/pre-commit', 'evil'), { text: 'done' }],
        {},
        undefined,
        { capabilities, args: ['--auto-approve'] },
      );
      mkdirSync(join(h.workspace, '.git'));
      const asked: Json[] = [];
      h.client.handle('approve', (params) => {
        asked.push(params);
        return { decision: 'allow_all' };
      });
      const { phases } = await h.prompt({ text: 'write' });
      assert.equal(existsSync(join(h.workspace, 'a.txt')), true);
      const results = phases.filter((p) => p.type === 'tool_result');
      if (capabilities.approve === true) {
        assert.deepEqual(
          asked.map((p) => [p.path, p.protected]),
          [['.git/hooks/pre-commit', true]],
        );
        assert.equal(existsSync(join(h.workspace, '.git/hooks/pre-commit')), true, 'the person allowed it');
      } else {
        assert.equal(asked.length, 0);
        assert.equal(existsSync(join(h.workspace, '.git/hooks/pre-commit')), false);
        assert.match(String(results[1]?.output), /protected location \(git's internals/);
      }
    }
  });

  test('a command that writes to a protected location is asked after allow_all; reading one is not asked', async () => {
    const h = await start(
      'anthropic',
      [
        { toolCalls: [{ id: 'c1', name: 'run_command', args: { command: 'echo one > one.txt' } }] },
        {
          toolCalls: [{ id: 'c2', name: 'run_command', args: { command: 'echo x > .git/hooks/pre-commit' } }],
        },
        { toolCalls: [{ id: 'c3', name: 'run_command', args: { command: 'ls .git' } }] },
        { toolCalls: [{ id: 'c4', name: 'run_command', args: { command: 'echo two > two.txt' } }] },
        { text: 'done' },
      ],
      {},
      undefined,
      APPROVER,
    );
    mkdirSync(join(h.workspace, '.git/hooks'), { recursive: true });
    writeFileSync(join(h.workspace, '.git/HEAD'), 'ref: refs/heads/main\n');
    const asked: Json[] = [];
    h.client.handle('approve', (params) => {
      asked.push(params);
      return { decision: asked.length === 1 ? 'allow_all' : 'reject' };
    });
    await h.prompt({ text: 'go' });
    assert.deepEqual(
      asked.map((p) => [p.command, p.protected]),
      [
        ['echo one > one.txt', undefined],
        ['echo x > .git/hooks/pre-commit', true],
      ],
    );
    assert.equal(existsSync(join(h.workspace, '.git/hooks/pre-commit')), false);
    assert.equal(existsSync(join(h.workspace, 'two.txt')), true);
  });

  test('allow_all given while another agent waits on its approval: that request is withdrawn and allowed', async () => {
    const systemText = (request: { body: Json }) =>
      (request.body.system as Array<{ text: string }>).map((block) => block.text).join('\n');
    const by = (role: string, task?: string) => (request: RecordedRequest) =>
      systemText(request).includes(`You are the ${role}`) && (task === undefined || ownTask(task)(request));
    const h = await start(
      'anthropic',
      [
        {
          match: by('orchestrator'),
          toolCalls: [
            {
              name: 'spawn_agents',
              args: {
                agents: [
                  { agentId: 'executor', task: 'Write a.txt' },
                  { agentId: 'executor', task: 'Write b.txt' },
                ],
              },
            },
          ],
        },
        { match: by('executor', 'Write a.txt'), ...write('w1', 'a.txt', 'a') },
        { match: by('executor', 'Write b.txt'), ...write('w2', 'b.txt', 'b') },
        {
          match: by('executor', 'Write a.txt'),
          toolCalls: [{ name: 'task_completed', args: { result: 'a done' } }],
        },
        {
          match: by('executor', 'Write b.txt'),
          toolCalls: [{ name: 'task_completed', args: { result: 'b done' } }],
        },
        {
          match: by('orchestrator'),
          toolCalls: [{ name: 'task_completed', args: { result: 'both written' } }],
        },
      ],
      {},
      undefined,
      { ...APPROVER, generalist: false },
    );
    const asked: Json[] = [];
    h.client.handle('approve', async (params) => {
      asked.push(params);
      if (asked.length > 1) return new Promise(() => {}); // the user never gets to it
      while (asked.length < 2) await new Promise((resolve) => setTimeout(resolve, 10));
      return { decision: 'allow_all' };
    });
    const { response } = await h.prompt({ text: 'Write a.txt and b.txt with two executors' });
    assert.equal((response.result as Json).output, 'both written');
    assert.equal(asked.length, 2);
    assert.equal(existsSync(join(h.workspace, 'a.txt')), true);
    assert.equal(existsSync(join(h.workspace, 'b.txt')), true);
    assert.ok(
      h.client.messages.some((m) => m.method === '$/cancelRequest'),
      'the waiting approve was withdrawn',
    );
  });
});
