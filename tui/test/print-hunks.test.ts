/**
 * `santra -p` answering per hunk, as `git add -p` does, and editing a command before it runs
 * (§7.3.2), driven by a scripted UserInput.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ApproveParams } from '#protocol';
import { Approvals, type UserInput } from '../src/print/approvals.ts';

const line = (type: 'context' | 'added' | 'removed', text: string) => ({ type, text });
const hunk = (id: string, from: string, to: string) => ({
  id,
  oldStart: 1,
  oldLines: 1,
  newStart: 1,
  newLines: 1,
  lines: [line('removed', from), line('added', to)],
});
const threeHunks: ApproveParams = {
  kind: 'file_change',
  sessionId: 's-1',
  runId: 'run-1',
  agentId: 'executor',
  toolCallId: 'call-1',
  toolName: 'write_file',
  path: 'src/greet.ts',
  operation: 'modify',
  diff: {
    added: 3,
    removed: 3,
    replacement: false,
    hunks: [hunk('h1', 'one', 'ONE'), hunk('h2', 'two', 'TWO'), hunk('h3', 'three', 'THREE')],
    unifiedDiff: '--- a/src/greet.ts\n+++ b/src/greet.ts\n',
  },
};
const command: ApproveParams = {
  kind: 'command',
  sessionId: 's-1',
  runId: 'run-1',
  agentId: 'executor',
  toolCallId: 'call-2',
  toolName: 'run_command',
  command: 'npm test',
  cwd: '/home/ada/project',
};

/** Answers keys and lines from a script; records every prompt. */
class Script implements UserInput {
  readonly prompts: string[] = [];
  readonly answers: Array<string | undefined>;
  constructor(answers: Array<string | undefined>) {
    this.answers = answers;
  }
  key(prompt: string, choices: readonly string[]): Promise<string | undefined> {
    this.prompts.push(prompt);
    const answer = this.answers.shift();
    assert.ok(answer === undefined || choices.includes(answer), `${String(answer)} offered in: ${prompt}`);
    return Promise.resolve(answer);
  }
  question(prompt: string): Promise<string | undefined> {
    this.prompts.push(prompt);
    return Promise.resolve(this.answers.shift());
  }
}

function ask(params: ApproveParams, answers: Array<string | undefined>) {
  const reader = new Script(answers);
  let stderr = '';
  const approvals = new Approvals({ policy: 'ask', reader, write: (text) => (stderr += text), color: false });
  return {
    result: approvals.approve(params, new AbortController().signal),
    reader,
    stderr: () => stderr,
  };
}

describe('santra -p: per hunk', () => {
  const cases: Array<[string, Array<string | undefined>, unknown]> = [
    ['y n y: the first and the last', ['p', 'y', 'n', 'y'], { decision: 'allow', hunks: ['h1', 'h3'] }],
    ['n a: the second and the rest', ['p', 'n', 'a'], { decision: 'allow', hunks: ['h2', 'h3'] }],
    ['y d: the first only', ['p', 'y', 'd'], { decision: 'allow', hunks: ['h1'] }],
    ['every hunk is a plain allow', ['p', 'y', 'y', 'y'], { decision: 'allow' }],
    ['no hunk is a reject', ['p', 'n', 'n', 'n'], { decision: 'reject' }],
    ['end of input rejects', ['p', 'y', undefined], { decision: 'reject' }],
  ];
  for (const [name, answers, expected] of cases) {
    test(name, async () => {
      const { result } = ask(threeHunks, answers);
      assert.deepEqual(await result, expected);
    });
  }

  test('[p] is offered with several hunks, each hunk is shown numbered before its question', async () => {
    const { result, reader, stderr } = ask(threeHunks, ['p', 'y', 'n', 'n']);
    await result;
    assert.match(reader.prompts[0] ?? '', /\[p\] per hunk/);
    assert.match(stderr(), /hunk 1\/3 @@ -1 \+1 @@\n-one\n\+ONE\n/);
    assert.match(stderr(), /hunk 3\/3/);
    assert.match(
      reader.prompts[1] ?? '',
      /Apply this hunk\? \[y\] yes {2}\[n\] no {2}\[a\] this and the rest {2}\[d\] none of the rest/,
    );
    assert.match(stderr(), /1 of 3 hunks allowed/);
  });

  test('a change of one hunk, a deletion, or hunks without ids (an older server) offer no [p]', async () => {
    const one = { ...threeHunks, diff: { ...threeHunks.diff, hunks: [hunk('h1', 'a', 'b')] } };
    const deletion = { ...threeHunks, operation: 'delete' as const };
    const old = {
      ...threeHunks,
      diff: { ...threeHunks.diff, hunks: threeHunks.diff.hunks.map(({ id: _id, ...rest }) => rest) },
    };
    for (const params of [one, deletion, old]) {
      const { result, reader } = ask(params, ['y']);
      assert.deepEqual(await result, { decision: 'allow' });
      assert.doesNotMatch(reader.prompts[0] ?? '', /\[p\]/);
    }
  });
});

describe('santra -p: edit a command', () => {
  test('[e] sends the typed command; empty or unchanged is a plain allow', async () => {
    assert.deepEqual(await ask(command, ['e', ' npm test -- --grep greet ']).result, {
      decision: 'allow',
      command: 'npm test -- --grep greet',
    });
    assert.deepEqual(await ask(command, ['e', '']).result, { decision: 'allow' });
    assert.deepEqual(await ask(command, ['e', 'npm test']).result, { decision: 'allow' });
    assert.deepEqual(await ask(command, ['e', undefined]).result, { decision: 'reject' });
  });

  test('an escalation offers no [e]', async () => {
    const escalation = {
      ...command,
      protected: true,
      sandbox: 'danger-full-access' as const,
      escalation: { reason: 'network' },
    };
    const { result, reader } = ask(escalation, ['n']);
    assert.deepEqual(await result, { decision: 'reject' });
    assert.doesNotMatch(reader.prompts[0] ?? '', /\[e\]/);
  });
});
