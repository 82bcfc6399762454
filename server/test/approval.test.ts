/**
 * The approval gate through the protocol: a fake model asks for file changes and commands, the
 * client answers `approve` (and `ask`) requests, and the disk shows what happened.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { suiteHarnesses } from './helpers/run.ts';
import type { Json } from './helpers/wire.ts';

const start = suiteHarnesses();
const APPROVER = { capabilities: { approve: true, ask: true, diffs: true } };
const write = (id: string, path: string, content: string) => ({
  toolCalls: [{ id, name: 'write_file', args: { path, content } }],
});
const results = (phases: Json[]) => phases.filter((p) => p.type === 'tool_result');

describe('approve through the protocol', () => {
  test('allow: the approve request carries the exact diff, and the file is written only after it', async () => {
    const h = await start(
      'anthropic',
      [write('t1', 'src/hello.txt', 'hello\nworld\n'), { text: 'done' }],
      {},
      undefined,
      APPROVER,
    );
    const seen: Json[] = [];
    h.client.handle('approve', (params) => {
      seen.push(params);
      assert.equal(existsSync(join(h.workspace, 'src/hello.txt')), false, 'nothing on disk before allow');
      return { decision: 'allow' };
    });
    const { response, phases } = await h.prompt({ text: 'create it' });
    assert.equal((response.result as Json).status, 'completed');
    assert.equal(readFileSync(join(h.workspace, 'src/hello.txt'), 'utf8'), 'hello\nworld\n');
    const [approve] = seen;
    assert.equal(approve?.kind, 'file_change');
    assert.equal(approve?.sessionId, (response.result as Json).sessionId, 'it names the session');
    assert.equal(approve?.toolCallId, 't1');
    assert.equal(approve?.path, 'src/hello.txt');
    assert.equal(approve?.operation, 'create');
    assert.equal((approve?.diff as Json).added, 2);
    assert.match(String((approve?.diff as Json).unifiedDiff), /\+hello\n\+world/);
    assert.equal(results(phases)[0]?.status, 'ok');
  });

  test('a move: path is the source, destination the target, and the diff header shows the rename', async () => {
    const h = await start(
      'anthropic',
      [
        { toolCalls: [{ id: 'm1', name: 'move_file', args: { from: 'a.txt', to: 'sub/b.txt' } }] },
        { text: 'moved' },
      ],
      {},
      undefined,
      APPROVER,
    );
    writeFileSync(join(h.workspace, 'a.txt'), 'same\n');
    const seen: Json[] = [];
    h.client.handle('approve', (params) => {
      seen.push(params);
      return { decision: 'allow' };
    });
    await h.prompt({ text: 'move it' });
    assert.equal(readFileSync(join(h.workspace, 'sub/b.txt'), 'utf8'), 'same\n');
    const [approve] = seen;
    assert.equal(approve?.operation, 'move');
    assert.equal(approve?.path, 'a.txt');
    assert.equal(approve?.destination, 'sub/b.txt');
    const diff = approve?.diff as Json;
    assert.equal(diff.unifiedDiff, '--- a/a.txt\n+++ b/sub/b.txt\n');
    assert.deepEqual([diff.added, diff.removed, diff.hunks], [0, 0, []]);
  });

  test('reject: nothing is written and the model is told; feedback reaches the model', async () => {
    const h = await start(
      'anthropic',
      [write('t1', 'a.txt', 'one'), write('t2', 'a.txt', 'two'), { text: 'ok, stopping' }],
      {},
      undefined,
      APPROVER,
    );
    const decisions = [{ decision: 'reject' }, { decision: 'feedback', feedback: 'use a.md instead' }];
    h.client.handle('approve', () => decisions.shift());
    const { phases } = await h.prompt({ text: 'write' });
    assert.equal(existsSync(join(h.workspace, 'a.txt')), false);
    assert.deepEqual(
      results(phases).map((p) => p.status),
      ['rejected', 'rejected'],
    );
    const second = (h.fake.requests[1]?.body.messages as Json[]).at(-1)?.content as Json[];
    assert.match(String(second[0]?.content), /The user rejected this/);
    const third = (h.fake.requests[2]?.body.messages as Json[]).at(-1)?.content as Json[];
    assert.match(String(third[0]?.content), /use a\.md instead/);
  });

  test('allow_all: later changes in the session are not asked; .git internals still are', async () => {
    const h = await start(
      'anthropic',
      [
        write('t1', 'a.txt', '1'),
        write('t2', 'b.txt', '2'),
        write('t3', '.git/config', '[core]'),
        { text: 'done' },
      ],
      {},
      undefined,
      APPROVER,
    );
    mkdirSync(join(h.workspace, '.git'));
    const asked: string[] = [];
    h.client.handle('approve', (params) => {
      asked.push(String(params.path));
      return { decision: asked.length === 1 ? 'allow_all' : 'reject' };
    });
    await h.prompt({ text: 'write' });
    assert.deepEqual(asked, ['a.txt', '.git/config']);
    assert.equal(readFileSync(join(h.workspace, 'b.txt'), 'utf8'), '2');
    assert.equal(existsSync(join(h.workspace, '.git/config')), false);
  });

  test('a command is shown exactly as it will run, with its cwd, and runs only when allowed', async () => {
    const h = await start(
      'anthropic',
      [
        { toolCalls: [{ id: 'c1', name: 'run_command', args: { command: 'echo made > marker.txt' } }] },
        { text: 'done' },
      ],
      {},
      undefined,
      APPROVER,
    );
    const seen: Json[] = [];
    h.client.handle('approve', (params) => {
      seen.push(params);
      return { decision: 'reject' };
    });
    await h.prompt({ text: 'run it' });
    assert.equal(seen[0]?.kind, 'command');
    assert.equal(seen[0]?.command, 'echo made > marker.txt');
    assert.equal(seen[0]?.cwd, h.workspace);
    assert.equal(existsSync(join(h.workspace, 'marker.txt')), false);
  });

  test('a read-only command on the allowlist runs without asking', async () => {
    const h = await start(
      'anthropic',
      [{ toolCalls: [{ id: 'c1', name: 'run_command', args: { command: 'ls -la' } }] }, { text: 'done' }],
      {},
      undefined,
      APPROVER,
    );
    writeFileSync(join(h.workspace, 'visible.txt'), 'x');
    let asked = 0;
    h.client.handle('approve', () => {
      asked++;
      return { decision: 'reject' };
    });
    await h.prompt({ text: 'list' });
    assert.equal(asked, 0);
    const output = ((h.fake.requests[1]?.body.messages as Json[]).at(-1)?.content as Json[])[0]?.content;
    assert.match(String(output), /visible\.txt/);
  });

  test('a client without the approve capability gets a clear error, and nothing is written', async () => {
    const h = await start('anthropic', [write('t1', 'a.txt', 'x'), { text: 'ok' }]);
    const { phases } = await h.prompt({ text: 'write' });
    assert.equal(existsSync(join(h.workspace, 'a.txt')), false);
    assert.match(String(results(phases)[0]?.output), /cannot give approvals/);
  });

  test('--auto-approve allows without a client', async () => {
    const h = await start('anthropic', [write('t1', 'a.txt', 'auto'), { text: 'ok' }], {}, undefined, {
      args: ['--auto-approve'],
    });
    await h.prompt({ text: 'write' });
    assert.equal(readFileSync(join(h.workspace, 'a.txt'), 'utf8'), 'auto');
    assert.match(h.client.stderr, /--auto-approve/);
  });

  test('the client going away while an approval is pending means rejected: nothing is written', async () => {
    const h = await start(
      'anthropic',
      [write('t1', 'a.txt', 'never'), { text: 'ok' }],
      {},
      undefined,
      APPROVER,
    );
    const id = h.nextId();
    h.client.request(id, 'prompt', { text: 'write', agent: 'tester' });
    await h.client.next((m) => m.method === 'approve');
    h.client.child.stdin.end();
    await h.client.exit();
    assert.equal(existsSync(join(h.workspace, 'a.txt')), false);
  });

  test('ask_user becomes an ask request and the answer reaches the model', async () => {
    const h = await start(
      'anthropic',
      [
        {
          toolCalls: [
            {
              id: 'q1',
              name: 'ask_user',
              args: {
                prompt: 'Tabs or spaces?',
                options: [
                  { label: 'Tabs', value: 'tabs' },
                  { label: 'Spaces', value: 'spaces' },
                ],
              },
            },
          ],
        },
        { text: 'spaces it is' },
      ],
      {},
      undefined,
      APPROVER,
    );
    const asked: Json[] = [];
    h.client.handle('ask', (params) => {
      asked.push(params);
      return { answer: 'spaces' };
    });
    const { response } = await h.prompt({ text: 'ask me' });
    assert.equal(asked[0]?.prompt, 'Tabs or spaces?');
    assert.equal(asked[0]?.sessionId, (response.result as Json).sessionId, 'it names the session');
    assert.equal(asked[0]?.toolCallId, 'q1', 'and the ask_user call it answers');
    const output = ((h.fake.requests[1]?.body.messages as Json[]).at(-1)?.content as Json[])[0]?.content;
    assert.match(String(output), /The user answered: spaces/);
  });

  test('policy: a denied tool is not offered; a denied command is refused without asking, even inside a compound line', async () => {
    const h = await start(
      'anthropic',
      [
        {
          toolCalls: [
            { id: 'c1', name: 'run_command', args: { command: 'ls && FOO=1 git push origin main' } },
          ],
        },
        { text: 'ok' },
      ],
      {},
      { tools: { policy: { web_fetch: 'deny' }, denyCommands: ['git push*'] } },
      APPROVER,
    );
    let asked = 0;
    h.client.handle('approve', () => {
      asked++;
      return { decision: 'allow' };
    });
    await h.prompt({ text: 'push' });
    assert.equal(asked, 0);
    const offered = (h.fake.requests[0]?.body.tools as Json[]).map((tool) => tool.name);
    assert.ok(!offered.includes('web_fetch'));
    assert.ok(offered.includes('web_search'));
    const output = ((h.fake.requests[1]?.body.messages as Json[]).at(-1)?.content as Json[])[0]?.content;
    assert.match(String(output), /denies this command/);
  });
});
