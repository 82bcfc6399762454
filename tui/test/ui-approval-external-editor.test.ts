/**
 * The overlay's `e` without the overlay: the editor chosen ($VISUAL, $EDITOR, vi), real editor
 * processes (small shell scripts) editing the real temporary file, what comes of their exit, and
 * the file left behind (none). `suspend` is a plain call here: the hand-over of a real terminal is
 * checked in ui-approval-editor.test.ts, in tmux.
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import type { ApproveParams } from '#protocol';
import { editApproval, editInEditor, editorCommand } from '../src/ui/external-editor.ts';
import { removeTempDir, tempDir } from '../../scripts/temp-dirs.ts';

const dirs: string[] = [];
after(async () => {
  for (const dir of dirs) await removeTempDir(dir);
});

/** A scratch directory: the editors' scripts, and TMPDIR for the temporary files. */
function scratch() {
  const dir = tempDir('santra-editor-test-');
  dirs.push(dir);
  const script = (name: string, body: string) => {
    const file = join(dir, name);
    writeFileSync(file, `#!/bin/sh\n${body}\n`);
    chmodSync(file, 0o755);
    return file;
  };
  return { dir, script };
}

let suspended = 0;
const options = (env: NodeJS.ProcessEnv) => ({
  env: { PATH: process.env.PATH, ...env },
  suspend: async (task: () => Promise<void>) => {
    suspended++;
    await task();
  },
});

describe('the external editor', () => {
  test('$VISUAL, then $EDITOR, then vi; blank counts as unset', () => {
    assert.equal(editorCommand({ VISUAL: 'code --wait', EDITOR: 'nano' }), 'code --wait');
    assert.equal(editorCommand({ VISUAL: '  ', EDITOR: 'nano' }), 'nano');
    assert.equal(editorCommand({}), 'vi');
  });

  test('what the editor saved comes back; it ran with the terminal handed over, and its file is gone', async () => {
    const { dir, script } = scratch();
    const seen = join(dir, 'seen');
    // $EDITOR with an argument of its own: the file is the last argument.
    const editor = script('edit.sh', `cp "$2" ${seen}; printf 'mine\\n' > "$2"; [ "$1" = "--flag" ]`);
    const before = suspended;
    const outcome = await editInEditor(
      'theirs\n',
      'greet.ts',
      options({ EDITOR: `${editor} --flag`, TMPDIR: dir }),
    );
    assert.deepEqual(outcome, { saved: 'mine\n' });
    assert.equal(readFileSync(seen, 'utf8'), 'theirs\n');
    assert.equal(suspended, before + 1);
    assert.deepEqual(
      readdirSync(dir).filter((name) => name.startsWith('santra-edit-')),
      [],
    );
  });

  test('the file is named as the original (the editor knows its language), never outside its directory', async () => {
    const { dir, script } = scratch();
    const names = join(dir, 'names');
    const editor = script('name.sh', `basename "$1" >> ${names}; dirname "$1" >> ${names}`);
    await editInEditor('x', 'greet.ts', options({ EDITOR: editor, TMPDIR: dir }));
    await editInEditor('x', '../../etc/passwd', options({ EDITOR: editor, TMPDIR: dir }));
    const [first, firstDir, second, secondDir] = readFileSync(names, 'utf8').trim().split('\n');
    assert.equal(first, 'greet.ts');
    assert.equal(second, '_.._etc_passwd');
    for (const parent of [firstDir, secondDir])
      assert.match(parent ?? '', new RegExp(`^${dir}/santra-edit-[^/]+$`));
  });

  test('an editor that exits non-zero, or is not there, answers nothing and says why', async () => {
    const { dir, script } = scratch();
    const failing = script('fail.sh', 'exit 3');
    assert.deepEqual(await editInEditor('x', 'a.ts', options({ EDITOR: failing, TMPDIR: dir })), {
      failed: `the editor \`${failing}\` exited with 3: nothing was answered`,
    });
    const missing = join(dir, 'no-such-editor');
    const outcome = await editInEditor('x', 'a.ts', options({ EDITOR: missing, TMPDIR: dir }));
    assert.ok('failed' in outcome);
    assert.match(outcome.failed, /was not found .*set \$VISUAL or \$EDITOR/);
  });

  test('editApproval reads the file under the workspace root and answers with what was saved', async () => {
    const { dir, script } = scratch();
    const root = join(dir, 'ws');
    mkdirSync(root);
    writeFileSync(join(root, 'a.txt'), 'one\ntwo\n');
    const params: ApproveParams = {
      kind: 'file_change',
      sessionId: 's',
      runId: 'r',
      agentId: 'executor-1',
      toolCallId: 'c',
      toolName: 'edit_file',
      path: 'a.txt',
      operation: 'modify',
      diff: {
        added: 1,
        removed: 1,
        replacement: false,
        hunks: [
          {
            id: 'h1',
            oldStart: 1,
            oldLines: 2,
            newStart: 1,
            newLines: 2,
            lines: [
              { type: 'removed', text: 'one', oldLine: 1 },
              { type: 'added', text: 'ONE', newLine: 1 },
              { type: 'context', text: 'two', oldLine: 2, newLine: 2 },
            ],
          },
        ],
        unifiedDiff: '--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n-one\n+ONE\n two\n',
      },
    };
    const keep = script('keep.sh', 'true');
    assert.deepEqual(await editApproval(params, undefined, root, options({ EDITOR: keep, TMPDIR: dir })), {
      decision: 'allow',
    });
    const append = script('append.sh', `printf 'three\\n' >> "$1"`);
    assert.deepEqual(await editApproval(params, undefined, root, options({ EDITOR: append, TMPDIR: dir })), {
      decision: 'allow',
      content: 'ONE\ntwo\nthree\n',
    });
    // The file changed on disk since the diff: nothing opens, the note says why.
    writeFileSync(join(root, 'a.txt'), 'uno\ntwo\n');
    const changed = await editApproval(params, undefined, root, options({ EDITOR: append, TMPDIR: dir }));
    assert.ok('note' in changed);
    assert.match(changed.note, /line 1 of a\.txt is not what the diff shows/);
  });
});
