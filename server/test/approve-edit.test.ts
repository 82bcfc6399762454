/**
 * Approvals that edit (§7.3.2) through the real server: a fake model proposes changes, the client
 * allows some hunks, its own version of the file, or its own command, and the disk, the session's
 * undo and the model's next request show exactly what was written or run.
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
/** What the model read as the result of the last tool call, in its request number `index`. */
const toolOutput = (h: { fake: { requests: Array<{ body: Json }> } }, index: number): string => {
  const last = (h.fake.requests[index]?.body.messages as Json[]).at(-1)?.content as Json[];
  return String(last[0]?.content);
};
const hunksOf = (approve: Json | undefined) => (approve?.diff as Json).hunks as Json[];

/** Twelve lines, so that a change at each end makes two hunks. */
const ORIGINAL = Array.from({ length: 12 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
const PROPOSED = ORIGINAL.replace('line 1\n', 'line ONE\n').replace('line 12\n', 'line TWELVE\n');

describe('approve: allow some hunks', () => {
  test('a two-hunk change with one hunk accepted writes only that hunk, and the model is told which', async () => {
    const h = await start(
      'anthropic',
      [write('t1', 'a.txt', PROPOSED), { text: 'done' }],
      {},
      undefined,
      APPROVER,
    );
    writeFileSync(join(h.workspace, 'a.txt'), ORIGINAL);
    const seen: Json[] = [];
    h.client.handle('approve', (params) => {
      seen.push(params);
      return { decision: 'allow', hunks: [String(hunksOf(params)[1]?.id)] };
    });
    const { phases } = await h.prompt({ text: 'edit' });
    const hunks = hunksOf(seen[0]);
    assert.equal(hunks.length, 2, 'two hunks offered');
    assert.match(String(hunks[0]?.id), /^h[0-9a-f]+$/);
    assert.notEqual(hunks[0]?.id, hunks[1]?.id, 'ids are unique within the request');
    assert.equal(
      readFileSync(join(h.workspace, 'a.txt'), 'utf8'),
      ORIGINAL.replace('line 12\n', 'line TWELVE\n'),
      'only the second hunk is on disk',
    );
    const result = results(phases)[0];
    assert.equal(result?.status, 'ok');
    assert.match(String(result?.summary), /1 of 2 hunks/);
    const told = toolOutput(h, 1);
    assert.match(told, /accepted 1 of the 2 hunks/);
    assert.match(told, /Applied:\n@@ -9,4 \+9,4 @@[^]*\+line TWELVE/);
    assert.match(told, /Rejected[^\n]*\n@@ -1,4 \+1,4 @@\n-line 1\n\+line ONE/);
  });

  test('the ids are stable: the same change asked again carries the same ids', async () => {
    const h = await start(
      'anthropic',
      [write('t1', 'a.txt', PROPOSED), write('t2', 'a.txt', PROPOSED), { text: 'done' }],
      {},
      undefined,
      APPROVER,
    );
    writeFileSync(join(h.workspace, 'a.txt'), ORIGINAL);
    const ids: unknown[][] = [];
    h.client.handle('approve', (params) => {
      ids.push(hunksOf(params).map((hunk) => hunk.id));
      return { decision: 'reject' };
    });
    await h.prompt({ text: 'edit twice' });
    assert.equal(ids.length, 2);
    assert.deepEqual(ids[0], ids[1]);
  });

  test('multi_edit: accepting one of its hunks says what was written, not "applied 2 edits"', async () => {
    const h = await start(
      'anthropic',
      [
        {
          toolCalls: [
            {
              id: 'm1',
              name: 'multi_edit',
              args: {
                path: 'a.txt',
                edits: [
                  { oldStr: 'line 1\n', newStr: 'line ONE\n' },
                  { oldStr: 'line 12\n', newStr: 'line TWELVE\n' },
                ],
              },
            },
          ],
        },
        { text: 'done' },
      ],
      {},
      undefined,
      APPROVER,
    );
    writeFileSync(join(h.workspace, 'a.txt'), ORIGINAL);
    h.client.handle('approve', (params) => ({ decision: 'allow', hunks: [String(hunksOf(params)[0]?.id)] }));
    await h.prompt({ text: 'edit' });
    assert.equal(
      readFileSync(join(h.workspace, 'a.txt'), 'utf8'),
      ORIGINAL.replace('line 1\n', 'line ONE\n'),
    );
    const told = toolOutput(h, 1);
    assert.match(told, /accepted 1 of the 2 hunks/);
    assert.doesNotMatch(told, /Applied 2 edits/);
  });

  test('no hunk accepted: nothing is written, and the result is a rejection that lists the hunks', async () => {
    const h = await start(
      'anthropic',
      [write('t1', 'a.txt', PROPOSED), { text: 'ok' }],
      {},
      undefined,
      APPROVER,
    );
    writeFileSync(join(h.workspace, 'a.txt'), ORIGINAL);
    h.client.handle('approve', () => ({ decision: 'allow', hunks: [] }));
    const { phases } = await h.prompt({ text: 'edit' });
    assert.equal(readFileSync(join(h.workspace, 'a.txt'), 'utf8'), ORIGINAL);
    assert.equal(results(phases)[0]?.status, 'rejected');
    assert.match(toolOutput(h, 1), /Nothing was written[^]*accepted 0 of the 2 hunks/);
  });

  test('an unknown hunk id is an invalid answer (InvalidParams, naming it): nothing is written', async () => {
    const h = await start(
      'anthropic',
      [write('t1', 'a.txt', PROPOSED), { text: 'ok' }],
      {},
      undefined,
      APPROVER,
    );
    writeFileSync(join(h.workspace, 'a.txt'), ORIGINAL);
    let first: unknown;
    h.client.handle('approve', (params) => {
      first = hunksOf(params)[0]?.id;
      return { decision: 'allow', hunks: [first, 'h-no-such-hunk'] };
    });
    const { phases } = await h.prompt({ text: 'edit' });
    assert.equal(readFileSync(join(h.workspace, 'a.txt'), 'utf8'), ORIGINAL, 'not even the known hunk');
    const result = results(phases)[0];
    assert.equal(result?.status, 'rejected');
    assert.match(String(result?.output), /InvalidParams/);
    assert.match(String(result?.output), /"h-no-such-hunk" is not in the request/);
  });

  test('hunks or content for a deletion, or two edits at once, are invalid answers', async () => {
    const h = await start(
      'anthropic',
      [
        { toolCalls: [{ id: 'd1', name: 'delete_file', args: { path: 'a.txt' } }] },
        write('t2', 'b.txt', 'new\n'),
        { text: 'ok' },
      ],
      {},
      undefined,
      APPROVER,
    );
    writeFileSync(join(h.workspace, 'a.txt'), ORIGINAL);
    const answers = [
      { decision: 'allow', content: 'keep me\n' },
      { decision: 'allow', content: 'x\n', hunks: [] },
    ];
    h.client.handle('approve', () => answers.shift());
    const { phases } = await h.prompt({ text: 'go' });
    assert.equal(readFileSync(join(h.workspace, 'a.txt'), 'utf8'), ORIGINAL);
    assert.equal(existsSync(join(h.workspace, 'b.txt')), false);
    const [deletion, creation] = results(phases);
    assert.match(String(deletion?.output), /`content` does not apply to a delete of a file/);
    assert.match(String(creation?.output), /carries hunks and content; an allow carries at most one/);
  });
});

describe('approve: allow an edited version', () => {
  test("the person's version is written, the model reads their changes as a diff, and undo restores the original", async () => {
    const h = await start(
      'anthropic',
      [write('t1', 'a.txt', PROPOSED), { text: 'done' }],
      {},
      undefined,
      APPROVER,
    );
    writeFileSync(join(h.workspace, 'a.txt'), ORIGINAL);
    const edited = PROPOSED.replace('line ONE\n', 'line One (mine)\n');
    h.client.handle('approve', (params) =>
      params.toolName === 'session/undo' ? { decision: 'allow' } : { decision: 'allow', content: edited },
    );
    const { response, phases } = await h.prompt({ text: 'edit' });
    assert.equal(readFileSync(join(h.workspace, 'a.txt'), 'utf8'), edited);
    assert.match(String(results(phases)[0]?.summary), /edited by the user/);
    const told = toolOutput(h, 1);
    assert.match(told, /The user edited your proposed content of a\.txt/);
    assert.match(told, /-line ONE\n\+line One \(mine\)/);

    // Undo takes back what was written — the person's version — to the original.
    const sessionId = (response.result as Json).sessionId;
    const undoId = h.nextId();
    h.client.request(undoId, 'session/undo', { sessionId });
    const undone = await h.client.response(undoId);
    assert.equal(undone.error, undefined, JSON.stringify(undone.error));
    assert.deepEqual(
      ((undone.result as Json).changes as Json[]).map((c) => c.outcome),
      ['restored'],
      'undo takes back the version that was written, so it finds the file as it left it',
    );
    assert.equal(readFileSync(join(h.workspace, 'a.txt'), 'utf8'), ORIGINAL);
  });

  test('a file created from an edited proposal is created as edited', async () => {
    const h = await start(
      'anthropic',
      [write('t1', 'new.txt', 'model\n'), { text: 'done' }],
      {},
      undefined,
      APPROVER,
    );
    h.client.handle('approve', () => ({ decision: 'allow', content: 'person\n' }));
    await h.prompt({ text: 'create' });
    assert.equal(readFileSync(join(h.workspace, 'new.txt'), 'utf8'), 'person\n');
    assert.match(toolOutput(h, 1), /-model\n\+person/);
  });
});

describe('approve: the file changed on disk while the person decided', () => {
  for (const answer of ['hunks', 'content'] as const) {
    test(`${answer}: what the user wrote on disk is never overwritten; the change is asked again on it`, async () => {
      const h = await start(
        'anthropic',
        [
          {
            toolCalls: [
              {
                id: 's1',
                name: 'str_replace',
                args: { path: 'a.txt', oldStr: 'line 12\n', newStr: 'line TWELVE\n' },
              },
            ],
          },
          { text: 'done' },
        ],
        {},
        undefined,
        APPROVER,
      );
      writeFileSync(join(h.workspace, 'a.txt'), ORIGINAL);
      const typedMeanwhile = ORIGINAL.replace('line 1\n', 'line 1 typed by the user\n');
      const seen: Json[] = [];
      h.client.handle('approve', (params) => {
        seen.push(params);
        // The first time, the user changes the file in their editor before answering.
        if (seen.length === 1) writeFileSync(join(h.workspace, 'a.txt'), typedMeanwhile);
        const id = String(hunksOf(params)[0]?.id);
        return answer === 'hunks'
          ? { decision: 'allow', hunks: [id] }
          : { decision: 'allow', content: ORIGINAL.replace('line 12\n', 'line 12 (edited)\n') };
      });
      await h.prompt({ text: 'edit' });
      assert.equal(seen.length, 2, 'asked again on the new content');
      assert.equal((seen[1]?.diff as Json).added, 1, 'the second request is computed on what the user typed');
      const onDisk = readFileSync(join(h.workspace, 'a.txt'), 'utf8');
      if (answer === 'hunks') {
        assert.equal(onDisk, typedMeanwhile.replace('line 12\n', 'line TWELVE\n'));
      } else {
        // The second answer's content is the person's again, written over what was asked the second time.
        assert.equal(onDisk, ORIGINAL.replace('line 12\n', 'line 12 (edited)\n'));
      }
      assert.match(toolOutput(h, 1), /changed while the change was being approved/);
    });
  }
});

describe('approve: allow an edited command', () => {
  test('an edited command that is not read-only is shown again, and runs as edited', async () => {
    const h = await start(
      'anthropic',
      [
        { toolCalls: [{ id: 'c1', name: 'run_command', args: { command: 'echo model > model.txt' } }] },
        { text: 'done' },
      ],
      {},
      undefined,
      APPROVER,
    );
    const seen: Json[] = [];
    h.client.handle('approve', (params) => {
      seen.push(params);
      return seen.length === 1
        ? { decision: 'allow', command: 'echo person > person.txt' }
        : { decision: 'allow' };
    });
    await h.prompt({ text: 'run' });
    assert.deepEqual(
      seen.map((s) => s.command),
      ['echo model > model.txt', 'echo person > person.txt'],
    );
    assert.equal(existsSync(join(h.workspace, 'model.txt')), false);
    assert.equal(readFileSync(join(h.workspace, 'person.txt'), 'utf8'), 'person\n');
    assert.match(
      toolOutput(h, 1),
      /The user edited your command before it ran: it ran as `echo person > person\.txt`/,
    );
  });

  test('an edited command on the read-only allowlist runs without a second question', async () => {
    const h = await start(
      'anthropic',
      [
        { toolCalls: [{ id: 'c1', name: 'run_command', args: { command: 'rm -rf build' } }] },
        { text: 'done' },
      ],
      {},
      undefined,
      APPROVER,
    );
    writeFileSync(join(h.workspace, 'visible.txt'), 'x');
    let asked = 0;
    h.client.handle('approve', () => {
      asked++;
      return { decision: 'allow', command: 'ls' };
    });
    await h.prompt({ text: 'run' });
    assert.equal(asked, 1);
    assert.match(toolOutput(h, 1), /visible\.txt/);
  });

  test('an edited command is a new command: rejected the second time, it does not run', async () => {
    const h = await start(
      'anthropic',
      [
        { toolCalls: [{ id: 'c1', name: 'run_command', args: { command: 'echo a > a.txt' } }] },
        { text: 'done' },
      ],
      {},
      undefined,
      APPROVER,
    );
    const answers = [{ decision: 'allow', command: 'echo b > b.txt' }, { decision: 'reject' }];
    h.client.handle('approve', () => answers.shift());
    const { phases } = await h.prompt({ text: 'run' });
    assert.equal(existsSync(join(h.workspace, 'a.txt')), false);
    assert.equal(existsSync(join(h.workspace, 'b.txt')), false);
    assert.equal(results(phases)[0]?.status, 'rejected');
  });

  test('allow_all carries no edit: a `command` beside it is ignored and the proposal runs as shown', async () => {
    const h = await start(
      'anthropic',
      [
        { toolCalls: [{ id: 'c1', name: 'run_command', args: { command: 'echo hi > note.txt' } }] },
        { text: 'done' },
      ],
      {},
      undefined,
      APPROVER,
    );
    mkdirSync(join(h.workspace, '.git/hooks'), { recursive: true });
    const seen: Json[] = [];
    h.client.handle('approve', (params) => {
      seen.push(params);
      return seen.length === 1
        ? { decision: 'allow_all', command: 'echo evil > .git/hooks/pre-commit' }
        : { decision: 'reject' };
    });
    await h.prompt({ text: 'run' });
    // allow_all carries no edit (an edit rides only on allow): the proposal ran as shown.
    assert.equal(readFileSync(join(h.workspace, 'note.txt'), 'utf8'), 'hi\n');
    assert.equal(seen.length, 1);
  });

  test('an edited command into a protected location is asked again, as protected', async () => {
    const h = await start(
      'anthropic',
      [
        { toolCalls: [{ id: 'c1', name: 'run_command', args: { command: 'echo one > one.txt' } }] },
        { text: 'done' },
      ],
      {},
      undefined,
      APPROVER,
    );
    mkdirSync(join(h.workspace, '.git/hooks'), { recursive: true });
    const seen: Json[] = [];
    // The person edits a harmless write into a write of a git hook: that is a new, protected request.
    h.client.handle('approve', (params) => {
      seen.push(params);
      return seen.length === 1
        ? { decision: 'allow', command: 'echo evil > .git/hooks/pre-commit' }
        : { decision: 'reject' };
    });
    await h.prompt({ text: 'run' });
    assert.equal(seen[1]?.command, 'echo evil > .git/hooks/pre-commit');
    assert.equal(seen[1]?.protected, true);
    assert.equal(existsSync(join(h.workspace, '.git/hooks/pre-commit')), false);
  });

  test('hunks on a command are an invalid answer: nothing runs', async () => {
    const h = await start(
      'anthropic',
      [
        { toolCalls: [{ id: 'c1', name: 'run_command', args: { command: 'echo a > a.txt' } }] },
        { text: 'done' },
      ],
      {},
      undefined,
      APPROVER,
    );
    h.client.handle('approve', () => ({ decision: 'allow', hunks: [] }));
    const { phases } = await h.prompt({ text: 'run' });
    assert.equal(existsSync(join(h.workspace, 'a.txt')), false);
    assert.match(String(results(phases)[0]?.output), /InvalidParams[^]*`hunks` does not apply to a command/);
  });
});
