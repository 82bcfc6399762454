import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseCli } from '../src/entry/cli.ts';

describe('parseCli', () => {
  test('serves with defaults', () => {
    assert.deepEqual(parseCli([], {}), {
      action: 'serve',
      settings: {
        maxMessageBytes: 16 * 1024 * 1024,
        maxConcurrentRequests: 64,
        logLevel: 'warn',
        autoApprove: false,
        allowDirs: [],
      },
    });
  });

  test('reads flags and SANTRA_LOG_LEVEL; a flag wins over the environment', () => {
    assert.deepEqual(
      parseCli(['--max-message-bytes', '8192', '--max-concurrent-requests=3'], { SANTRA_LOG_LEVEL: 'debug' }),
      {
        action: 'serve',
        settings: {
          maxMessageBytes: 8192,
          maxConcurrentRequests: 3,
          logLevel: 'debug',
          autoApprove: false,
          allowDirs: [],
        },
      },
    );
    const command = parseCli(['--log-level', 'error'], { SANTRA_LOG_LEVEL: 'debug' });
    assert.equal(command.action === 'serve' && command.settings.logLevel, 'error');
  });

  test('lsp and acp are modes with the same options', () => {
    const lsp = parseCli(['lsp', '--log-level', 'debug', '--allow-dir', '/srv/shared'], {});
    assert.deepEqual(lsp.action === 'adapter' && [lsp.mode, lsp.settings.logLevel, lsp.settings.allowDirs], [
      'lsp',
      'debug',
      ['/srv/shared'],
    ]);
    const acp = parseCli(['--auto-approve', 'acp'], {});
    assert.deepEqual(acp.action === 'adapter' && [acp.mode, acp.settings.autoApprove], ['acp', true]);
  });

  test('version and help', () => {
    const version = parseCli(['-v'], {});
    assert.equal(version.action, 'version');
    assert.match(version.action === 'version' ? version.text : '', /^santra-server \S+ \(protocol \S+\)$/);
    assert.equal(parseCli(['--help'], {}).action, 'help');
  });

  for (const [argv, env, message] of [
    [['--nope'], {}, /Unknown option '--nope'/],
    [['stray'], {}, /unknown command "stray": santra-server takes lsp, acp or no command/],
    [['lsp', 'extra'], {}, /santra-server lsp takes options only, got "extra"/],
    [['--max-message-bytes', '0'], {}, /--max-message-bytes must be a positive integer, got "0"/],
    [
      ['--max-message-bytes', '1000'],
      {},
      /--max-message-bytes must be at least 8192 \(the protocol's minimum/,
    ],
    [['--max-concurrent-requests', 'lots'], {}, /--max-concurrent-requests must be a positive integer/],
    [
      [],
      { SANTRA_LOG_LEVEL: 'loud' },
      /santra-server: SANTRA_LOG_LEVEL must be error, warn, info or debug, got "loud"/,
    ],
    [
      ['--log-level', 'loud'],
      {},
      /santra-server: --log-level must be error, warn, info or debug, got "loud"/,
    ],
  ] as const) {
    test(`usage error: ${argv.join(' ') || JSON.stringify(env)}`, () => {
      const command = parseCli(argv, env);
      assert.equal(command.action, 'usage_error');
      assert.match(command.action === 'usage_error' ? command.text : '', message);
    });
  }
});
