/**
 * What `santra -p` says on stderr beside the answer, against the fake server: each thing once.
 * (On a shared terminal, lines on stderr start on their own line: print-tty.test.ts.)
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { tempDir } from '../../scripts/temp-dirs.ts';
import { runPrint } from './helpers/print-run.ts';

const inWorkspace = ['--cwd', tempDir('santra-print-ws-')];

describe('santra -p on stderr', () => {
  test('the same warning twice is said once', async () => {
    const { code, stdout, stderr } = await runPrint(['-p', 'hi', ...inWorkspace], {
      scenario: 'warning-twice',
    });
    assert.equal(code, 0, stderr);
    assert.equal(stdout, 'one, two\n');
    assert.equal(stderr.match(/not in Santra's model list/g)?.length, 1, stderr);
    assert.match(stderr, /^! fake\/nosuch is not in Santra's model list$/m);
  });
});
