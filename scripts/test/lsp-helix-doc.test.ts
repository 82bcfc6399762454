/**
 * docs/editors/helix.md's languages.toml snippet, checked against Helix's documented keys
 * (book/src/languages.md, "Language Server configuration": command, args, config, timeout,
 * environment, required-root-patterns; a language's `language-servers`), and its command run as
 * written: `santra lsp` from package.json's bin answers an LSP initialize. Node has no TOML
 * parser; the snippet uses the few TOML forms read here, and anything else fails the test.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { removeTempDir, tempDir } from '../temp-dirs.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const LANGUAGE_SERVER_KEYS = [
  'command',
  'args',
  'config',
  'timeout',
  'environment',
  'required-root-patterns',
];
const LANGUAGE_KEYS = ['name', 'language-servers'];

type Tables = Array<{ header: string; keys: Map<string, string> }>;

/** The TOML block after the `helix-languages-toml` marker, as tables of raw `key = value` lines. */
function snippetTables(): Tables {
  const markdown = readFileSync(join(ROOT, 'docs/editors/helix.md'), 'utf8');
  const block = /<!-- helix-languages-toml -->\s*```toml\n([\s\S]*?)```/.exec(markdown)?.[1];
  assert.ok(block, 'helix.md has a ```toml block after <!-- helix-languages-toml -->');
  const tables: Tables = [];
  for (const raw of block.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const header = /^(\[\[?[a-z.-]+\]\]?)$/.exec(line)?.[1];
    if (header !== undefined) {
      tables.push({ header, keys: new Map() });
      continue;
    }
    const pair = /^([a-z-]+) = (.+)$/.exec(line);
    assert.ok(pair?.[1] !== undefined && pair[2] !== undefined, `not a key = value line: ${line}`);
    const table = tables.at(-1);
    assert.ok(table, `a key before any table: ${line}`);
    table.keys.set(pair[1], pair[2]);
  }
  return tables;
}

test('helix.md: the languages.toml snippet uses only documented keys and starts `santra lsp`', () => {
  const tables = snippetTables();
  const server = tables.find((table) => table.header === '[language-server.santra]');
  assert.ok(server, 'a [language-server.santra] table');
  for (const key of server.keys.keys())
    assert.ok(LANGUAGE_SERVER_KEYS.includes(key), `undocumented key ${key}`);
  assert.equal(server.keys.get('command'), '"santra"');
  assert.equal(server.keys.get('args'), '["lsp"]');
  // config becomes initializationOptions, which santra lsp checks: only model and agent.
  assert.match(server.keys.get('config') ?? '', /^\{ model = "[a-z]+\/[a-z0-9.-]+" \}$/);
  const languages = tables.filter((table) => table.header === '[[language]]');
  assert.ok(languages.length > 0, 'a [[language]] entry');
  for (const language of languages) {
    for (const key of language.keys.keys()) assert.ok(LANGUAGE_KEYS.includes(key), `undocumented key ${key}`);
    assert.match(language.keys.get('language-servers') ?? '', /"santra"\]$/);
  }
  assert.equal(tables.length, 1 + languages.length, 'no other tables');
  const bin = (
    JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> }
  ).bin;
  assert.equal(bin.santra, 'dist/santra.js', 'the snippet\'s command is package.json\'s "santra" bin');
});

test("`santra lsp`, the snippet's command, answers an LSP initialize and exits 0 after shutdown and exit", async () => {
  const home = tempDir('santra-helix-doc-');
  try {
    const child = spawn(process.execPath, [join(ROOT, 'dist/santra.js'), 'lsp'], {
      cwd: home,
      env: { PATH: process.env.PATH, HOME: home, SANTRA_HOME: join(home, 'santra') },
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const frame = (message: object) => {
      const body = JSON.stringify({ jsonrpc: '2.0', ...message });
      return `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    };
    child.stdin.write(
      frame({ id: 1, method: 'initialize', params: { processId: null, rootUri: null, capabilities: {} } }),
    );
    child.stdin.write(frame({ id: 2, method: 'shutdown' }));
    child.stdin.write(frame({ method: 'exit' }));
    const [code] = (await once(child, 'exit')) as [number | null];
    assert.equal(code, 0, stdout);
    assert.match(stdout, /^Content-Length: \d+\r\n\r\n\{"jsonrpc":"2.0","id":1,"result":\{"capabilities":/);
    assert.ok(stdout.includes('"santra.fix"'), stdout);
  } finally {
    await removeTempDir(home);
  }
});
