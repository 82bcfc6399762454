import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type Command, parseCommandLine, type PrintOptions } from '../src/print/args.ts';

const base = { stdinIsTTY: true, cwd: '/home/ada/project' };
const parse = (argv: string[], context = base): Command => parseCommandLine(argv, context);
const defaults: PrintOptions = {
  prompt: 'fix it',
  outputFormat: 'text',
  model: undefined,
  agent: undefined,
  cwd: '/home/ada/project',
  cwdGiven: false,
  approveAll: false,
  verbose: false,
  resume: undefined,
  continueLatest: false,
};

describe('santra command line', () => {
  const accepted: Array<[string, string[], Partial<PrintOptions>]> = [
    ['-p with a prompt', ['-p', 'fix it'], {}],
    ['--print, prompt first', ['fix it', '--print'], {}],
    [
      'every option',
      [
        '-p',
        '--output-format',
        'stream-json',
        '--model',
        'openai/gpt-5',
        '--agent',
        'reviewer',
        '--approve-all',
        '--verbose',
        'fix it',
      ],
      {
        outputFormat: 'stream-json',
        model: 'openai/gpt-5',
        agent: 'reviewer',
        approveAll: true,
        verbose: true,
      },
    ],
    ['--output-format=json', ['-p', '--output-format=json', 'fix it'], { outputFormat: 'json' }],
    [
      'relative --cwd resolved',
      ['-p', '--cwd', '../other', 'fix it'],
      { cwd: '/home/ada/other', cwdGiven: true },
    ],
    ['absolute --cwd kept', ['-p', '--cwd', '/srv/app/', 'fix it'], { cwd: '/srv/app', cwdGiven: true }],
    ['a prompt starting with - after --', ['-p', '--', '-x is broken'], { prompt: '-x is broken' }],
    ['--resume <id>', ['-p', '--resume', 'ses_1', 'go on'], { prompt: 'go on', resume: 'ses_1' }],
    ['--continue', ['-p', '--continue', 'go on'], { prompt: 'go on', continueLatest: true }],
    ['-c', ['-pc', 'go on'], { prompt: 'go on', continueLatest: true }],
    ['--max-budget-usd', ['-p', '--max-budget-usd', '2.50', 'fix it'], { maxBudgetUsd: 2.5 }],
    ['--max-budget-usd with a $', ['-p', '--max-budget-usd=$0.75', 'fix it'], { maxBudgetUsd: 0.75 }],
  ];
  for (const [name, argv, expected] of accepted) {
    test(`accepts ${name}`, () => {
      assert.deepEqual(parse(argv), { action: 'print', options: { ...defaults, ...expected } });
    });
  }

  test('-p without text reads stdin when it is not a terminal, and is a usage error when it is', () => {
    assert.deepEqual(parse(['-p'], { ...base, stdinIsTTY: false }), {
      action: 'print',
      options: { ...defaults, prompt: undefined },
    });
    const onTty = parse(['-p']);
    assert.equal(onTty.action, 'usage_error');
    assert.match((onTty as { message: string }).message, /-p needs a prompt.*\| santra -p/);
  });

  test('--help and --version win over everything; no arguments prints help', () => {
    assert.deepEqual(parse(['-p', 'x', '--help']), { action: 'help' });
    assert.deepEqual(parse(['-v']), { action: 'version' });
    assert.deepEqual(parse([]), { action: 'help' });
  });

  const rejected: Array<[string, string[], RegExp]> = [
    ['an empty prompt', ['-p', ''], /the prompt is empty/],
    ['a blank prompt', ['-p', '  \n'], /the prompt is empty/],
    [
      'two prompts',
      ['-p', 'fix', 'it'],
      /-p takes one prompt, got 2 arguments; put the prompt in quotes: santra -p "fix it"/,
    ],
    [
      'an unknown format',
      ['-p', '--output-format', 'xml', 'x'],
      /--output-format must be text, json, stream-json, got "xml"/,
    ],
    ['an empty model', ['-p', '--model', '', 'x'], /--model needs a model id/],
    ['an empty agent', ['-p', '--agent', ' ', 'x'], /--agent needs an agent id/],
    ['--agent without -p', ['--agent', 'reader'], /--agent only works with -p\/--print/],
    ['an empty cwd', ['-p', '--cwd', '', 'x'], /--cwd needs a directory/],
    [
      'an empty --resume',
      ['-p', '--resume', ' ', 'x'],
      /--resume needs a session id \(santra sessions lists them\)/,
    ],
    [
      '--resume with --continue',
      ['-p', '--resume', 'ses_1', '-c', 'x'],
      /--resume and --continue both name a session/,
    ],
    ['--continue without -p', ['--continue'], /--continue only works with -p\/--print/],
    ['--model without a value', ['-p', 'x', '--model'], /argument missing/],
    ['an unknown option', ['-p', 'x', '--frobnicate'], /Unknown option '--frobnicate'/],
    ['a print option without -p', ['--model', 'm'], /--model only works with -p\/--print/],
    ['--approve-all without -p', ['--approve-all'], /--approve-all only works with -p/],
    ...['0', '-1', 'five', '1e3x', ''].map((amount): [string, string[], RegExp] => [
      `--max-budget-usd ${JSON.stringify(amount)}`,
      ['-p', `--max-budget-usd=${amount}`, 'x'],
      /--max-budget-usd needs an amount of US dollars greater than 0, e\.g\. --max-budget-usd 2\.50/,
    ]),
    ['--max-budget-usd without -p', ['--max-budget-usd', '2'], /--max-budget-usd only works with -p/],
    [
      'a bare prompt without -p',
      ['fix it'],
      /unexpected argument "fix it"; to run a prompt, use santra -p "fix it"/,
    ],
  ];
  for (const [name, argv, message] of rejected) {
    test(`rejects ${name}`, () => {
      const command = parse(argv);
      assert.equal(command.action, 'usage_error', JSON.stringify(command));
      assert.match((command as { message: string }).message, message);
    });
  }

  test('santra sessions, with --json', () => {
    assert.deepEqual(parse(['sessions', '--json']), {
      action: 'list',
      options: { what: 'sessions', json: true, cwd: '/home/ada/project', cwdGiven: false },
    });
  });

  test('santra sessions --latest --path: the newest session, as its file; with santra sessions only', () => {
    assert.deepEqual(parse(['sessions', '--latest', '--path']), {
      action: 'list',
      options: {
        what: 'sessions',
        json: false,
        latest: true,
        path: true,
        cwd: '/home/ada/project',
        cwdGiven: false,
      },
    });
    assert.deepEqual(parse(['sessions', '--latest', '--json']), {
      action: 'list',
      options: { what: 'sessions', json: true, latest: true, cwd: '/home/ada/project', cwdGiven: false },
    });
    const errors: Array<[string[], string]> = [
      [['models', '--latest'], '--latest works with santra sessions, not santra models'],
      [['agents', '--path'], '--path works with santra sessions, not santra agents'],
      [
        ['sessions', '--path', '--json'],
        '--path prints file paths, --json the list as data: give one of them',
      ],
      [['-p', 'hi', '--latest'], '--latest works with santra sessions'],
      [['replay', 'a.jsonl', '--path'], 'santra replay takes no options, got --path'],
    ];
    for (const [argv, message] of errors) assert.deepEqual(parse(argv), { action: 'usage_error', message });
  });

  test('santra replay FILE: the file, resolved; nothing else', () => {
    assert.deepEqual(parse(['replay', 'sessions/ses_1.jsonl']), {
      action: 'replay',
      file: '/home/ada/project/sessions/ses_1.jsonl',
    });
    for (const argv of [['replay'], ['replay', 'a', 'b']]) {
      assert.deepEqual(parse(argv), {
        action: 'usage_error',
        message: 'santra replay takes one file: santra replay <session file>',
      });
    }
    assert.deepEqual(parse(['replay', 'a.jsonl', '--model', 'x']), {
      action: 'usage_error',
      message: 'santra replay takes no options, got --model',
    });
  });

  test('santra models / santra agents, with --json and --cwd', () => {
    assert.deepEqual(parse(['models']), {
      action: 'list',
      options: { what: 'models', json: false, cwd: '/home/ada/project', cwdGiven: false },
    });
    assert.deepEqual(parse(['agents', '--json', '--cwd', '../x']), {
      action: 'list',
      options: { what: 'agents', json: true, cwd: '/home/ada/x', cwdGiven: true },
    });
    assert.deepEqual(parse(['models', 'extra']), {
      action: 'usage_error',
      message: 'santra models takes no arguments, got "extra"',
    });
    assert.deepEqual(parse(['-p', 'hi', '--json']), {
      action: 'usage_error',
      message: '--json works with santra models, santra agents and santra sessions',
    });
  });

  test('on a terminal, santra alone is the UI; --continue and --resume <id> go on with a session', () => {
    const terminal = { ...base, terminal: true };
    assert.deepEqual(parse([], terminal), { action: 'interactive' });
    assert.deepEqual(parse(['--continue'], terminal), { action: 'interactive', resume: { latest: true } });
    assert.deepEqual(parse(['-c'], terminal), { action: 'interactive', resume: { latest: true } });
    assert.deepEqual(parse(['--resume', ' ses_1 '], terminal), {
      action: 'interactive',
      resume: { id: 'ses_1' },
    });
    assert.equal(parse(['--resume', 'a', '--continue'], terminal).action, 'usage_error');
    assert.deepEqual(parse(['--model', 'x'], terminal), {
      action: 'usage_error',
      message: '--model only works with -p/--print',
    });
    // Without a terminal there is no UI: the session options belong to -p.
    assert.deepEqual(parse(['--continue']), {
      action: 'usage_error',
      message: '--continue only works with -p/--print',
    });
  });
});
