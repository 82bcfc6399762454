/**
 * The interactive side of `santra -p` without a terminal: the approval and question logic driven
 * by a scripted UserInput.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ApproveParams, AskParams } from '#protocol';
import {
  Approvals,
  type ApprovalPolicy,
  formatApproval,
  type UserInput,
  QuestionUnanswerable,
  QuestionWithdrawn,
} from '../src/print/approvals.ts';

const ESC = '\u001b';
const fileChange: ApproveParams = {
  kind: 'file_change',
  sessionId: 's-1',
  runId: 'run-1',
  agentId: 'orchestrator',
  toolCallId: 'call-1',
  toolName: 'str_replace',
  path: 'src/greet.ts',
  operation: 'modify',
  diff: {
    added: 1,
    removed: 1,
    replacement: false,
    hunks: [],
    unifiedDiff: '--- a/src/greet.ts\n+++ b/src/greet.ts\n@@ -1 +1 @@\n-old\n+new\n',
  },
};
const command: ApproveParams = {
  kind: 'command',
  sessionId: 's-1',
  runId: 'run-1',
  agentId: 'orchestrator',
  toolCallId: 'call-2',
  toolName: 'run_command',
  command: 'rm -rf build\u001b[2J',
  cwd: '/home/ada/project',
};
const question: AskParams = {
  sessionId: 's-1',
  runId: 'run-1',
  agentId: 'orchestrator',
  toolCallId: 'call-3',
  header: 'Tests',
  prompt: 'Also update the tests?',
  options: [
    { label: 'Yes', value: 'yes' },
    { label: 'No', value: 'no' },
  ],
};

/**
 * Input that answers from a script and records what it was asked; undefined ends the input. A key
 * question skips scripted keys that are not among its choices, as a terminal ignores them.
 */
class ScriptedReader implements UserInput {
  readonly prompts: Array<{ prompt: string; secret: boolean }> = [];
  readonly #answers: Array<string | undefined>;
  constructor(answers: Array<string | undefined>) {
    this.#answers = answers;
  }
  key(
    prompt: string,
    choices: readonly string[],
    options: { signal: AbortSignal },
  ): Promise<string | undefined> {
    this.prompts.push({ prompt, secret: false });
    while (this.#answers.length > 0) {
      const answer = this.#answers.shift();
      if (answer === undefined) return Promise.resolve(undefined);
      if (choices.includes(answer.toLowerCase())) return Promise.resolve(answer.toLowerCase());
    }
    return this.#unanswered(options.signal);
  }
  question(prompt: string, options: { secret?: boolean; signal: AbortSignal }): Promise<string | undefined> {
    this.prompts.push({ prompt, secret: options.secret === true });
    if (this.#answers.length === 0) return this.#unanswered(options.signal);
    return Promise.resolve(this.#answers.shift());
  }
  /** Out of script: wait like a user who does not answer, until the question is withdrawn. */
  #unanswered(signal: AbortSignal): Promise<undefined> {
    return new Promise((resolve) =>
      signal.addEventListener('abort', () => resolve(undefined), { once: true }),
    );
  }
}

function setup(policy: ApprovalPolicy, answers: Array<string | undefined> = [], withReader = true) {
  const reader = new ScriptedReader(answers);
  let stderr = '';
  const approvals = new Approvals({
    policy,
    ...(withReader ? { reader } : {}),
    write: (text) => (stderr += text),
    color: false,
  });
  return { approvals, reader, stderr: () => stderr };
}

const live = () => new AbortController().signal;

describe('approvals on a terminal', () => {
  const cases: Array<[string, Array<string | undefined>, unknown]> = [
    ['y allows', ['y'], { decision: 'allow' }],
    ['Y allows too', ['Y'], { decision: 'allow' }],
    ['n rejects', ['n'], { decision: 'reject' }],
    [
      'f asks for feedback',
      ['f', ' use a template string '],
      { decision: 'feedback', feedback: 'use a template string' },
    ],
    ['f with empty feedback rejects', ['f', ''], { decision: 'reject' }],
    ['keys that are not choices are ignored', ['x', 'q', 'y'], { decision: 'allow' }],
    ['end of input rejects', [undefined], { decision: 'reject' }],
  ];
  for (const [name, answers, expected] of cases) {
    test(name, async () => {
      const { approvals, reader } = setup('ask', answers);
      assert.deepEqual(await approvals.approve(fileChange, live()), expected);
      assert.ok(reader.prompts.every((p) => !p.secret));
      assert.match(
        reader.prompts[0]?.prompt ?? '',
        /Allow\? \[y\] yes {2}\[a\] allow all {2}\[n\] no {2}\[f\] no, with feedback/,
      );
    });
  }

  test('shows the path, the counts and the diff of a file change before asking', async () => {
    const { approvals, stderr } = setup('ask', ['y']);
    await approvals.approve(fileChange, live());
    assert.match(stderr(), /wants to modify src\/greet\.ts \(\+1 −1; orchestrator, str_replace\)/);
    assert.match(stderr(), /\n-old\n\+new\n/);
  });

  test('a move names where the file goes, and the rejection note too', async () => {
    const move: ApproveParams = {
      ...fileChange,
      toolName: 'move_file',
      operation: 'move',
      path: 'a.txt',
      destination: 'sub/b.txt',
      diff: {
        added: 0,
        removed: 0,
        replacement: false,
        hunks: [],
        unifiedDiff: '--- a/a.txt\n+++ b/sub/b.txt\n',
      },
    };
    const { approvals, stderr } = setup('ask', ['y']);
    await approvals.approve(move, live());
    assert.match(stderr(), /wants to move a\.txt to sub\/b\.txt \(\+0 −0; orchestrator, move_file\)/);
    const rejected = setup('reject');
    await rejected.approvals.approve(move, live());
    assert.match(rejected.stderr(), /move a\.txt → sub\/b\.txt/);
  });

  test('shows the exact command and its cwd, control characters made visible', async () => {
    const { approvals, stderr } = setup('ask', ['n']);
    await approvals.approve(command, live());
    assert.match(stderr(), /\$ rm -rf build\^\[\[2J\n {2}in \/home\/ada\/project/);
    assert.ok(!stderr().includes(ESC));
  });

  test("a answers allow_all; a request that still arrives is asked (allow-all is the server's state)", async () => {
    const { approvals, reader } = setup('ask', ['a', 'n']);
    assert.deepEqual(await approvals.approve(fileChange, live()), { decision: 'allow_all' });
    assert.deepEqual(await approvals.approve(command, live()), { decision: 'reject' });
    assert.equal(reader.prompts.length, 2);
  });

  test('questions are asked one at a time', async () => {
    const { approvals, reader } = setup('ask', ['a', 'y']);
    const both = await Promise.all([
      approvals.approve(fileChange, live()),
      approvals.approve(command, live()),
    ]);
    assert.deepEqual(both, [{ decision: 'allow_all' }, { decision: 'allow' }]);
    assert.equal(reader.prompts.length, 2);
  });

  const hook: ApproveParams = {
    ...fileChange,
    path: '.git/hooks/pre-commit',
    operation: 'create',
    protected: true,
    protectedReason: "git's internals",
  };

  test('--approve-all never answers a protected request: it is asked on the terminal', async () => {
    const { approvals, reader, stderr } = setup('allow', ['n']);
    assert.deepEqual(await approvals.approve(fileChange, live()), { decision: 'allow' });
    assert.deepEqual(await approvals.approve(hook, live()), { decision: 'reject' });
    assert.equal(reader.prompts.length, 1);
    assert.match(stderr(), /protected location — git's internals\n {2}asked every time/);
  });

  test('a protected request offers no "allow all", and the key a is not taken as an answer', async () => {
    // `a` is not one of its keys (a terminal ignores it), so the `y` after it answers.
    const { approvals, reader } = setup('ask', ['a', 'y']);
    assert.deepEqual(await approvals.approve(hook, live()), { decision: 'allow' });
    assert.doesNotMatch(String(reader.prompts[0]?.prompt), /allow all/);
    assert.match(String(reader.prompts[0]?.prompt), /\[y\] yes {2}\[n\] no {2}\[f\] no, with feedback/);
  });

  test('without a terminal a protected request is rejected, saying why', async () => {
    for (const policy of ['allow', 'reject'] as const) {
      const writes: string[] = [];
      const approvals = new Approvals({ policy, write: (text) => writes.push(text), color: false });
      assert.deepEqual(await approvals.approve(hook, live()), { decision: 'reject' });
      assert.match(writes.join(''), /protected location \(git's internals\), which only a person can allow/);
    }
  });

  test('a request the server withdraws stops the question, and the next one is asked', async () => {
    const { approvals, reader, stderr } = setup('ask', []);
    const controller = new AbortController();
    const pending = approvals.approve(command, controller.signal);
    while (reader.prompts.length === 0) await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    await assert.rejects(pending, QuestionWithdrawn);
    assert.match(stderr(), /the question was withdrawn/);
    // Withdrawn while queued: never shown.
    const queued = new AbortController();
    queued.abort();
    await assert.rejects(approvals.approve(fileChange, queued.signal), QuestionWithdrawn);
    assert.equal(reader.prompts.length, 1);
  });

  test('withdrawAll (Ctrl-C) stops the question on screen and refuses later ones', async () => {
    const { approvals, reader } = setup('ask', []);
    const pending = approvals.approve(command, live());
    while (reader.prompts.length === 0) await new Promise((resolve) => setImmediate(resolve));
    approvals.withdrawAll();
    await assert.rejects(pending, QuestionWithdrawn);
    await assert.rejects(approvals.ask(question, live()), QuestionWithdrawn);
    assert.equal(reader.prompts.length, 1);
  });
});

describe('approvals without a terminal', () => {
  test('--approve-all allows without asking', async () => {
    const { approvals, reader, stderr } = setup('allow');
    assert.deepEqual(await approvals.approve(command, live()), { decision: 'allow' });
    assert.equal(reader.prompts.length, 0);
    assert.equal(stderr(), '');
  });

  test('no terminal and no flag rejects, saying what and how to allow it', async () => {
    const { approvals, stderr } = setup('reject', [], false);
    assert.deepEqual(await approvals.approve(fileChange, live()), { decision: 'reject' });
    assert.match(stderr(), /rejected modify src\/greet\.ts \(\+1 −1\).*--approve-all/);
  });
});

describe('ask', () => {
  test('a number picks an option, anything else is free text', async () => {
    const { approvals, reader, stderr } = setup('ask', ['2', 'only the unit tests']);
    assert.deepEqual(await approvals.ask(question, live()), { answer: 'no' });
    assert.deepEqual(await approvals.ask(question, live()), { answer: 'only the unit tests' });
    assert.match(stderr(), /── Tests ──\nAlso update the tests\?\n {2}1\) Yes\n {2}2\) No/);
    assert.match(reader.prompts[0]?.prompt ?? '', /Answer \(1-2, or type an answer\)/);
  });

  test('a number out of range is free text', async () => {
    const { approvals } = setup('ask', ['7']);
    assert.deepEqual(await approvals.ask(question, live()), { answer: '7' });
  });

  test('a secret is read without echo', async () => {
    const { approvals, reader, stderr } = setup('ask', ['sk-123']);
    const answer = await approvals.ask(
      { sessionId: 's', runId: 'r', agentId: 'a', toolCallId: 'c', prompt: 'API key?', secret: true },
      live(),
    );
    assert.deepEqual(answer, { answer: 'sk-123' });
    assert.deepEqual(reader.prompts, [{ prompt: 'Answer: ', secret: true }]);
    assert.doesNotMatch(stderr(), /sk-123/);
  });

  test('without a terminal, or at end of input, the question cannot be answered', async () => {
    await assert.rejects(setup('reject', [], false).approvals.ask(question, live()), (error: Error) => {
      assert.ok(error instanceof QuestionUnanswerable);
      assert.match(error.message, /no terminal to ask on.*Also update the tests\?/);
      return true;
    });
    await assert.rejects(setup('ask', [undefined]).approvals.ask(question, live()), QuestionUnanswerable);
  });
});

test('formatApproval colours added and removed lines only when asked to', () => {
  const plain = formatApproval(fileChange, false);
  assert.ok(!plain.includes(ESC));
  const coloured = formatApproval(fileChange, true);
  assert.ok(coloured.includes(`${ESC}[32m+new${ESC}[0m`), JSON.stringify(coloured));
  assert.ok(coloured.includes(`${ESC}[31m-old${ESC}[0m`), JSON.stringify(coloured));
});
