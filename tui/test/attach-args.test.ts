/**
 * `santra attach`'s command line: what it takes, and the usage errors that name the fix; through
 * the parser, and through the built santra for the errors a user meets (an unknown session).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { removeTempDir, tempDir } from '../../scripts/temp-dirs.ts';
import { parseAttachArgs } from '../src/attach/attach-command.ts';
import { parseCommandLine } from '../src/print/args.ts';

const run = promisify(execFile);
/** The built santra (npm run build), which starts the built server beside it. */
const SANTRA = fileURLToPath(new URL('../../dist/santra.js', import.meta.url));
const home = tempDir('santra-attach-home-');
after(() => removeTempDir(home));

test('santra attach takes the session and its options', () => {
  assert.deepEqual(
    parseCommandLine(['attach', 'ses_a', '--watch'], { stdinIsTTY: false, cwd: '/w', terminal: false }),
    {
      action: 'attach',
      args: ['ses_a', '--watch'],
    },
  );
  assert.deepEqual(parseAttachArgs(['ses_a'], '/w'), {
    sessionId: 'ses_a',
    afterSeq: 0,
    watch: false,
    untilDone: false,
    verbose: false,
    cwd: '/w',
    cwdGiven: false,
  });
  assert.deepEqual(
    parseAttachArgs(
      ['ses_a', '--after-seq', '42', '--until-done', '--watch', '--cwd', '/x', '--verbose'],
      '/w',
    ),
    {
      sessionId: 'ses_a',
      afterSeq: 42,
      watch: true,
      untilDone: true,
      verbose: true,
      cwd: '/x',
      cwdGiven: true,
    },
  );
});

test('bad arguments are usage errors that say what to give', () => {
  const error = (args: string[]) => {
    const parsed = parseAttachArgs(args, '/w');
    assert.ok('error' in parsed, `accepted ${args.join(' ')}`);
    return parsed.error;
  };
  assert.match(error([]), /needs the session id \(santra sessions lists them\)/);
  assert.match(error(['ses_a', 'ses_b']), /joins one session; unexpected ses_b/);
  assert.match(error(['ses_a', '--after-seq', 'ten']), /--after-seq needs a whole number .* not "ten"/);
  assert.match(error(['ses_a', '--after-seq=-1']), /--after-seq needs a whole number/);
  assert.match(error(['ses_a', '--cwd', '']), /--cwd needs a directory/);
  assert.match(error(['ses_a', '--colour']), /Unknown option '--colour'.*santra attach <session id>/);
});

test('the built santra: a usage error exits 2, an unknown session 1 with the server’s reason', async () => {
  const env = { PATH: process.env.PATH, HOME: home, SANTRA_HOME: join(home, 'santra'), NO_COLOR: '1' };
  const usage = await run(process.execPath, [SANTRA, 'attach'], { env }).then(
    () => assert.fail('santra attach without a session succeeded'),
    (failure: { code: number; stderr: string }) => failure,
  );
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /santra: santra attach needs the session id/);
  const unknown = await run(process.execPath, [SANTRA, 'attach', 'ses_nowhere', '--cwd', home], {
    env,
  }).then(
    () => assert.fail('attaching to an unknown session succeeded'),
    (failure: { code: number; stdout: string; stderr: string }) => failure,
  );
  assert.equal(unknown.code, 1);
  assert.equal(unknown.stdout, '');
  assert.match(unknown.stderr, /Unknown session ses_nowhere: it is not saved in this store/);
});
