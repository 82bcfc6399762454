import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { findViolations, importSpecifiers } from '../dependency-rules.ts';
import { tempDir } from '../temp-dirs.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

async function tree(files: Record<string, string>): Promise<string> {
  const dir = tempDir('santra-deps-');
  const all = {
    'package.json': JSON.stringify({ imports: { '#protocol': './protocol-spec/src/index.ts' } }),
    ...files,
  };
  for (const [path, content] of Object.entries(all)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  return dir;
}

describe('dependency rules', () => {
  test('the repository follows them', async () => {
    assert.deepEqual(await findViolations(root), []);
  });

  test('finds static, re-exported, side-effect, dynamic and require imports', () => {
    const source = `
      import { a } from './a.ts';
      import type { B } from "../b.ts";
      export * from './c.ts';
      import './d.ts';
      const e = await import('./e.ts');
      const f = require('f');
      import {
        g,
      } from 'g';`;
    assert.deepEqual(importSpecifiers(source).sort(), [
      '../b.ts',
      './a.ts',
      './c.ts',
      './d.ts',
      './e.ts',
      'f',
      'g',
    ]);
  });

  test('catches each forbidden edge and allows the permitted ones', async () => {
    const dir = await tree({
      'protocol-spec/src/index.ts': "import * as z from 'zod';\nimport { x } from '../../server/src/x.ts';",
      'tui/src/app.ts':
        "import { methods } from '#protocol';\nimport { serve } from '../../server/src/connection/connection.ts';",
      'conformance-tests/src/run.ts': "const s = await import('../../server/src/main.ts');",
      'server/src/runtime.ts':
        "import { methods } from '#protocol';\nimport { createMessageConnection } from 'vscode-jsonrpc/node';",
      'server/src/connection/connection.ts': "import { createMessageConnection } from 'vscode-jsonrpc/node';",
      'server/src/agent.ts': "import { App } from '../../tui/src/app.ts';",
    });
    const found = (await findViolations(dir)).map(({ file, rule }) => `${file} -> ${rule.forbidden}`).sort();
    assert.deepEqual(found, [
      'conformance-tests/src/run.ts -> server/',
      'protocol-spec/src/index.ts -> server/',
      'server/src/agent.ts -> tui/',
      'server/src/runtime.ts -> vscode-jsonrpc',
      'tui/src/app.ts -> server/',
    ]);
  });
});
