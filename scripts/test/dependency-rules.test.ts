import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  findViolations,
  formatViolation,
  LAYERS,
  packageOf,
  readImports,
  RULES,
} from '../dependency-rules.ts';
import { tempDir } from '../temp-dirs.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** A checkout of `files` in a temp directory (removed when the test process exits). */
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

/** What each layer may import besides itself, written out from CONTRIBUTING.md, not from LAYERS. */
const MAY: Record<string, string[]> = {
  entry: [
    'connection',
    'runtime',
    'mcp',
    'hooks',
    'skills',
    'memory',
    'agent',
    'sessions',
    'providers',
    'tools',
    'sandbox',
    'approval',
    'workspace',
    'config',
    'support',
  ],
  connection: ['support'], // and runtime/contract.ts: see below
  runtime: [
    'mcp',
    'hooks',
    'skills',
    'memory',
    'agent',
    'sessions',
    'providers',
    'tools',
    'sandbox',
    'approval',
    'workspace',
    'config',
    'support',
  ],
  mcp: ['tools', 'sandbox', 'approval', 'workspace', 'config', 'support'],
  hooks: ['tools', 'sandbox', 'approval', 'workspace', 'config', 'support'],
  skills: ['tools', 'workspace', 'support'],
  memory: ['providers', 'tools', 'support'],
  agent: ['hooks', 'sessions', 'providers', 'tools', 'approval', 'workspace', 'config', 'support'],
  sessions: ['providers', 'approval', 'support'],
  providers: ['support'],
  tools: ['sandbox', 'approval', 'workspace', 'support'],
  sandbox: ['approval', 'workspace', 'support'],
  approval: ['workspace', 'config', 'support'],
  workspace: ['support'],
  config: ['providers', 'support'],
  support: [],
};

describe('dependency rules', () => {
  // The layers of server/src are checked on the repository by `npm run check` (scripts/check-deps.ts).
  test('the repository follows the rules between its parts', async () => {
    assert.deepEqual(await findViolations(root, { rules: RULES }), []);
  });

  test('a package imported but not declared in package.json is a violation; declared, built in or local ones are not', async () => {
    const dir = await tree({
      'package.json': JSON.stringify({
        dependencies: { zod: '^4' },
        devDependencies: { '@types/node': '*' },
      }),
      'server/src/a.ts': [
        "import * as z from 'zod';",
        "import { readFile } from 'node:fs/promises';",
        "import { join } from 'path';",
        "import type { X } from './x.ts';",
        "import { helper } from 'left-pad';",
        "import type { Y } from '@scope/pkg/sub';",
      ].join('\n'),
    });
    const found = await findViolations(dir, { packages: ['server'] });
    assert.deepEqual(
      found.map((v) => [v.line, v.target]),
      [
        [5, 'left-pad'],
        [6, '@scope/pkg'],
      ],
    );
    assert.match(
      formatViolation(found[0] as (typeof found)[number]),
      /left-pad is not declared in package\.json/,
    );
    assert.deepEqual(
      ['./a.ts', '#protocol', 'node:fs', 'fs/promises', 'ink/build/x.js', '@a/b/c'].map(packageOf),
      [undefined, undefined, undefined, undefined, 'ink', '@a/b'],
    );
  });

  test('the model, ACP and LSP SDKs are confined to the layer that speaks them', async () => {
    const dir = await tree({
      'server/src/agent/loop.ts': "import OpenAI from 'openai';",
      'server/src/providers/openai.ts': "import OpenAI from 'openai';",
      'server/src/runtime/runtime.ts': "import type { Agent } from '@agentclientprotocol/sdk';",
      'server/src/connection/acp/acp-agent.ts': "import type { Agent } from '@agentclientprotocol/sdk';",
      'tui/src/client/session.ts': "import Anthropic from '@anthropic-ai/sdk/resources';",
    });
    const found = (await findViolations(dir, { rules: RULES })).map((v) => `${v.file} -> ${v.target}`);
    assert.deepEqual(found.sort(), [
      'server/src/agent/loop.ts -> openai',
      'server/src/runtime/runtime.ts -> @agentclientprotocol/sdk',
      'tui/src/client/session.ts -> @anthropic-ai/sdk/resources',
    ]);
  });

  test('reads every form of import, and nothing that only looks like one', () => {
    const source = [
      "import { a } from './a.ts';",
      'import type { B } from "../b.ts";',
      "import { type C, type D } from './cd.ts';",
      "import e, { type E } from './e.ts';",
      "export * from './f.ts';",
      "export { g } from './g.ts';",
      "export type { H } from './h.ts';",
      "import './i.ts';",
      "const j = await import('./j.ts');",
      "const k = require('k');",
      "type L = typeof import('./l.ts');",
      '// import { m } from "./m.ts";',
      'const n = "import(\'./n.ts\')";',
      'const o = await import(`./o-${n}.ts`);',
      'import {',
      '  p,',
      "} from 'p';",
    ].join('\n');
    const found = readImports('x.ts', source).map(({ specifier, line, typeOnly }) => ({
      specifier,
      line,
      typeOnly,
    }));
    assert.deepEqual(found, [
      { specifier: './a.ts', line: 1, typeOnly: false },
      { specifier: '../b.ts', line: 2, typeOnly: true },
      { specifier: './cd.ts', line: 3, typeOnly: true },
      { specifier: './e.ts', line: 4, typeOnly: false },
      { specifier: './f.ts', line: 5, typeOnly: false },
      { specifier: './g.ts', line: 6, typeOnly: false },
      { specifier: './h.ts', line: 7, typeOnly: true },
      { specifier: './i.ts', line: 8, typeOnly: false },
      { specifier: './j.ts', line: 9, typeOnly: false },
      { specifier: 'k', line: 10, typeOnly: false },
      { specifier: './l.ts', line: 11, typeOnly: true },
      { specifier: 'p', line: 17, typeOnly: false },
    ]);
  });

  test('catches each forbidden edge between the parts and allows the permitted ones', async () => {
    const dir = await tree({
      'protocol-spec/src/index.ts': "import * as z from 'zod';\nimport { x } from '../../server/src/x.ts';",
      'tui/src/app.ts':
        "import { methods } from '#protocol';\nimport { serve } from '../../server/src/connection/connection.ts';",
      'conformance-tests/src/run.ts': "const s = await import('../../server/src/entry/main.ts');",
      'server/src/runtime/runtime.ts':
        "import { methods } from '#protocol';\nimport { createMessageConnection } from 'vscode-jsonrpc/node';",
      'server/src/connection/connection.ts': "import { createMessageConnection } from 'vscode-jsonrpc/node';",
      'server/src/agent/loop.ts': "import type { App } from '../../../tui/src/app.ts';",
      'server/test/helpers.ts': "import { fake } from '../../conformance-tests/src/fake-providers/index.ts';",
    });
    const found = (await findViolations(dir, { rules: RULES }))
      .map(({ file, rule }) => `${file}: ${rule}`)
      .sort();
    assert.deepEqual(found, [
      'conformance-tests/src/run.ts: conformance-tests/ -> server/',
      'protocol-spec/src/index.ts: protocol-spec/ -> server/',
      'server/src/agent/loop.ts: server/ -> tui/',
      'server/src/runtime/runtime.ts: server/src/ -> vscode-jsonrpc',
      'tui/src/app.ts: tui/ -> server/',
    ]);
  });

  test('every rule between the parts can fail', async () => {
    const files: Record<string, string> = {};
    const expected: string[] = [];
    RULES.forEach((rule, index) => {
      const file = `${rule.from}rule-${index}/x.ts`;
      const specifier = rule.forbidden.endsWith('/')
        ? relative(dirname(file), `${rule.forbidden}y.ts`)
        : `${rule.forbidden}/node`;
      files[file] = `import { y } from '${specifier}';`;
      expected.push(`${file}: ${rule.from} -> ${rule.forbidden}`);
    });
    const found = (await findViolations(await tree(files), { rules: RULES })).map(
      ({ file, rule }) => `${file}: ${rule}`,
    );
    assert.deepEqual(found.sort(), expected.sort());
  });

  test('each layer imports only what it may', async () => {
    const folders = Object.keys(MAY);
    assert.deepEqual(
      LAYERS.map((layer) => layer.folder),
      folders,
      'the layers, top of the stack first',
    );
    const files: Record<string, string> = {};
    const expected: string[] = [];
    for (const from of folders) {
      files[`server/src/${from}/x.ts`] = 'export const x = 1;';
      for (const to of folders) {
        if (to === from) continue;
        const file = `server/src/${from}/uses-${to}.ts`;
        files[file] = `import { x } from '../${to}/x.ts';`;
        if (!(MAY[from] as string[]).includes(to)) expected.push(`${file} -> server/src/${to}/x.ts`);
      }
    }
    files['server/src/connection/contract-user.ts'] = [
      "import type { Runtime } from '../runtime/contract.ts';",
      "import { ProtocolFault } from '../support/protocol-fault.ts';",
      "import { fault } from '../runtime/protocol-fault.ts';",
      "import { x } from './x.ts';",
    ].join('\n');
    files['server/src/connection/wiring.ts'] = "import { createRuntime } from '../runtime/runtime.ts';";
    expected.push('server/src/connection/wiring.ts -> server/src/runtime/runtime.ts');
    expected.push('server/src/connection/contract-user.ts -> server/src/runtime/protocol-fault.ts');
    const violations = await findViolations(await tree(files), { layers: LAYERS });
    assert.deepEqual(violations.map(({ file, target }) => `${file} -> ${target}`).sort(), expected.sort());
    assert.ok(violations.every(({ rule, file }) => rule === `layer ${file.split('/')[2]}/`));
  });

  test('a file outside every layer is reported itself, once', async () => {
    const dir = await tree({
      'server/src/runtime.ts': "import { loop } from './agent/loop.ts';",
      'server/src/text/numbers.ts': 'export const n = 1;',
      'server/src/agent/loop.ts':
        "import { n } from '../text/numbers.ts';\nimport { r } from '../runtime.ts';",
      'server/test/loop.test.ts': "import { createRuntime } from '../src/runtime/runtime.ts';",
    });
    const violations = await findViolations(dir, { layers: LAYERS });
    assert.deepEqual(
      violations.map(({ file, rule }) => `${file}: ${rule}`),
      ['server/src/runtime.ts: layer (none)', 'server/src/text/numbers.ts: layer text/'],
    );
    assert.match(formatViolation(violations[0] as (typeof violations)[0]), /belongs to no layer/);
  });

  test('a type-only, dynamic, re-exported or required import breaks a layer like any other', async () => {
    const dir = await tree({
      'server/src/support/forms.ts': [
        "import type { Loop } from '../agent/loop.ts';",
        "export * from '../tools/read-file.ts';",
        "export type { Config } from '../config/config.ts';",
        "const runtime = await import('../runtime/runtime.ts');",
        "const stream = require('../providers/stream.ts');",
        "type Gate = typeof import('../approval/gate.ts');",
        "// import { main } from '../entry/main.ts';",
        'const text = "import(\'../entry/main.ts\')";',
      ].join('\n'),
    });
    const violations = await findViolations(dir, { layers: LAYERS });
    assert.deepEqual(
      violations.map(({ line, target, typeOnly }) => ({ line, target, typeOnly })),
      [
        { line: 1, target: 'server/src/agent/loop.ts', typeOnly: true },
        { line: 2, target: 'server/src/tools/read-file.ts', typeOnly: false },
        { line: 3, target: 'server/src/config/config.ts', typeOnly: true },
        { line: 4, target: 'server/src/runtime/runtime.ts', typeOnly: false },
        { line: 5, target: 'server/src/providers/stream.ts', typeOnly: false },
        { line: 6, target: 'server/src/approval/gate.ts', typeOnly: true },
      ],
    );
    assert.equal(
      formatViolation(violations[0] as (typeof violations)[0]),
      'server/src/support/forms.ts:1: imports "../agent/loop.ts" (types only) — support/ may import nothing of ' +
        'server/src: support is the bottom of the stack and imports nothing of server/src [layer support/]',
    );
  });
});
