/** The generated files must match what the zod source renders, and the check must notice when not. */
import assert from 'node:assert/strict';
import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  METHODS_FILE,
  REFERENCE_FILE,
  renderArtifacts,
  SCHEMA_FILE,
  SPEC_FILE,
  splice,
  staleArtifacts,
} from '../protocol-artifacts.ts';
import { tempDir } from '../temp-dirs.ts';
import { TOOLS_FILE } from '../tool-docs.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

async function copyOfRepo(): Promise<string> {
  const copy = tempDir('santra-drift-');
  for (const path of [
    'protocol-spec/schema',
    'protocol-spec/examples',
    SPEC_FILE,
    REFERENCE_FILE,
    TOOLS_FILE,
  ]) {
    await cp(join(root, path), join(copy, path), { recursive: true });
  }
  return copy;
}

describe('generated protocol files', () => {
  test('the checked-in files are up to date (run `npm run generate` if this fails)', async () => {
    assert.deepEqual(await staleArtifacts(root), []);
  });

  test('a hand edit to any generated file is reported', async () => {
    for (const file of [SCHEMA_FILE, METHODS_FILE, REFERENCE_FILE, SPEC_FILE]) {
      const copy = await copyOfRepo();
      const text = await readFile(join(copy, file), 'utf8');
      const edited = file.endsWith('.json')
        ? text.replace('"stable"', '"experimental"').replace('"type"', '"tipe"')
        : text
            .replace('| `initialize` |', '| `initialise` |')
            .replace('→ client to server', '→ from the client');
      assert.notEqual(edited, text, `${file}: the edit must change something`);
      await writeFile(join(copy, file), edited);
      assert.deepEqual(await staleArtifacts(copy), [file]);
    }
  });

  test('an edited example is reflected in the spec', async () => {
    const copy = await copyOfRepo();
    const examplePath = join(copy, 'protocol-spec/examples/lifecycle.jsonl');
    await writeFile(examplePath, (await readFile(examplePath, 'utf8')).replace('santra-tui', 'other-client'));
    assert.deepEqual(await staleArtifacts(copy), [SPEC_FILE]);
    assert.match((await renderArtifacts(copy)).get(SPEC_FILE) ?? '', /other-client/);
  });

  test('the JSON Schema defines every referenced type', async () => {
    const schema = JSON.parse((await renderArtifacts(root)).get(SCHEMA_FILE) ?? '{}') as {
      $defs: Record<string, unknown>;
    };
    const refs = [...JSON.stringify(schema).matchAll(/"#\/\$defs\/(\w+)"/g)].map(
      (match) => match[1] as string,
    );
    assert.ok(refs.length > 10);
    for (const ref of refs) assert.ok(schema.$defs[ref], `missing $defs/${ref}`);
  });

  test('splice refuses unknown and missing AUTOGEN blocks', () => {
    assert.throws(
      () => splice('<!-- AUTOGEN:nope -->\n<!-- /AUTOGEN -->', 'f.md', {}),
      /unknown AUTOGEN section "nope"/,
    );
    assert.throws(() => splice('no blocks', 'f.md', { methods: 'x' }), /no AUTOGEN block for methods/);
    assert.equal(
      splice('a\n<!-- AUTOGEN:x -->\nold\n<!-- /AUTOGEN -->\nb', 'f.md', { x: 'new' }),
      'a\n<!-- AUTOGEN:x -->\nnew\n<!-- /AUTOGEN -->\nb',
    );
  });
});
