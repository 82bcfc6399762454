/**
 * The command line of named sessions and fallback models (print/args.ts): `--continue NAME`,
 * `--resume NAME`, `santra sessions name`, `--fallback-model`.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type Command, parseCommandLine } from '../src/print/args.ts';

const base = { stdinIsTTY: true, cwd: '/home/ada/project' };
const parse = (argv: string[], context: Parameters<typeof parseCommandLine>[1] = base): Command =>
  parseCommandLine(argv, context);
const print = (argv: string[]) => {
  const command = parse(argv);
  assert.equal(command.action, 'print', JSON.stringify(command));
  return command.options;
};
const usage = (argv: string[], context: Parameters<typeof parseCommandLine>[1] = base) => {
  const command = parse(argv, context);
  assert.equal(command.action, 'usage_error', JSON.stringify(command));
  return command.message;
};

describe('--continue NAME and --resume NAME', () => {
  test('with -p, the word after --continue is a name when a prompt follows it, else the prompt', () => {
    for (const argv of [
      ['-p', '--continue', 'auth-refactor', 'go on'],
      ['-p', '-c', 'auth-refactor', 'go on'],
      ['-p', '--continue=auth-refactor', 'go on'],
      ['-p', '--continue', 'auth-refactor', '--model', 'openai/gpt-4o', 'go on'],
    ]) {
      const options = print(argv);
      assert.equal(options.resume, 'auth-refactor', argv.join(' '));
      assert.equal(options.continueLatest, false);
      assert.equal(options.prompt, 'go on');
    }
    const latest = print(['-p', '--continue', 'fix it']);
    assert.equal(latest.continueLatest, true);
    assert.equal(latest.resume, undefined);
    assert.equal(latest.prompt, 'fix it');
    // A value of another option is no prompt: the word stays the prompt.
    const valued = print(['-p', '--continue', 'fix it', '--model', 'openai/gpt-4o']);
    assert.equal(valued.continueLatest, true);
    assert.equal(valued.prompt, 'fix it');
    assert.equal(print(['-p', '--resume', 'auth-refactor', 'x']).resume, 'auth-refactor');
  });

  test('without -p, the interactive UI goes on with the named session', () => {
    const context = { ...base, terminal: true };
    assert.deepEqual(parse(['--continue', 'auth-refactor'], context), {
      action: 'interactive',
      resume: { id: 'auth-refactor' },
    });
    assert.deepEqual(parse(['-c'], context), { action: 'interactive', resume: { latest: true } });
    assert.match(
      usage(['--continue', 'a', '--resume', 'b'], context),
      /--resume and --continue both name a session/,
    );
  });

  test('an empty --resume says a session can be named by id, name or id prefix', () => {
    assert.match(
      usage(['-p', '--resume', ' ', 'x']),
      /its name or the start of its id, e\.g\. --resume ses_… or --resume auth-refactor/,
    );
  });
});

describe('santra sessions name', () => {
  test('names a session, or clears its name with --clear', () => {
    assert.deepEqual(parse(['sessions', 'name', 'ses_3f2a', 'auth-refactor']), {
      action: 'list',
      options: {
        what: 'sessions',
        json: false,
        rename: { session: 'ses_3f2a', name: 'auth-refactor' },
        cwd: '/home/ada/project',
        cwdGiven: false,
      },
    });
    const cleared = parse(['sessions', 'name', 'auth-refactor', '--clear']);
    assert.equal(cleared.action, 'list');
    assert.deepEqual(cleared.options.rename, {
      session: 'auth-refactor',
      name: null,
    });
  });

  test('anything else is a usage error that shows the form', () => {
    for (const argv of [
      ['sessions', 'name'],
      ['sessions', 'name', 'ses_1'],
      ['sessions', 'name', 'ses_1', 'a', 'b'],
      ['sessions', 'name', 'ses_1', 'a', '--clear'],
      ['sessions', 'name', 'ses_1', 'a', '--latest'],
    ])
      assert.match(usage(argv), /santra sessions name <session> <name> names a session/, argv.join(' '));
    assert.match(usage(['sessions', 'other']), /santra sessions takes no arguments but "name"/);
    assert.match(usage(['sessions', '--clear']), /--clear works with santra sessions name <session> --clear/);
  });
});

describe('--fallback-model', () => {
  test('repeatable and comma-separated, in order', () => {
    assert.deepEqual(
      print([
        '-p',
        '--fallback-model',
        'openai/gpt-4o, anthropic/claude-haiku-4-5',
        '--fallback-model',
        'groq/llama',
        'x',
      ]).fallbackModels,
      ['openai/gpt-4o', 'anthropic/claude-haiku-4-5', 'groq/llama'],
    );
    assert.equal(print(['-p', 'x']).fallbackModels, undefined, 'absent: the config decides');
  });

  test('an empty id, a use without -p, or with --replay is a usage error', () => {
    assert.match(usage(['-p', '--fallback-model', '', 'x']), /--fallback-model needs model ids/);
    assert.match(
      usage(['models', '--fallback-model', 'openai/gpt-4o']),
      /--fallback-model only works with -p\/--print/,
    );
    assert.match(
      usage(['-p', '--replay', 'rec.jsonl', '--fallback-model', 'openai/gpt-4o']),
      /--replay runs the recording's models; leave out --fallback-model/,
    );
  });
});
