/**
 * A broken config file does not stop the server (built server over stdio): what does not need the
 * broken part goes on, prompts say what to fix (file, line, field, suggestion), and the file is
 * read again once it changed — a fix takes effect at the next request, without a restart.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { tempDir } from '../../scripts/temp-dirs.ts';
import { suiteHarnesses } from './helpers/run.ts';
import type { Json } from './helpers/wire.ts';

const start = suiteHarnesses();

describe('a config file that changes under a running server', () => {
  test('broken: sessions and models work, prompts say what to fix; fixed: the next prompt runs; broken again: refused again', async () => {
    const home = tempDir('santra-reload-');
    mkdirSync(home, { recursive: true });
    const file = join(home, 'config.json');
    writeFileSync(file, '{\n  "stream": { "coalesceMs": 8 },\n  "agent": { "maxTurns": 5 }\n}\n');
    const h = await start('anthropic', [{ text: 'after the fix' }], { SANTRA_HOME: home });
    const call = async (method: string, params: Json = {}) => {
      const id = h.nextId();
      h.client.request(id, method, params);
      return h.client.response(id);
    };

    const models = await call('model/list');
    const problem = String((models.result as Json).configProblem);
    assert.match(problem, new RegExp(`${file.replaceAll('/', '\\/')}`));
    assert.match(problem, /agent\.maxTurns \(line 3\): unknown field, did you mean "maxTurnsPerRun"\?/);
    assert.ok(Array.isArray(((await call('session/list')).result as Json).sessions));
    assert.ok(Array.isArray(((await call('agents/list')).result as Json).agents));

    const refused = await h.prompt({ text: 'hello' });
    assert.equal((refused.response.error as Json).code, -33006);
    assert.match(
      String((refused.response.error as Json).message),
      /maxTurns \(line 3\).*\n.*no restart needed/s,
    );
    assert.equal(h.fake.requests.length, 0);

    writeFileSync(file, '{ "agent": { "maxTurnsPerRun": 5 } }\n');
    const fixed = await h.prompt({ text: 'hello' });
    assert.equal((fixed.response.result as Json).status, 'completed', JSON.stringify(fixed.response));
    assert.equal((fixed.response.result as Json).output, 'after the fix');
    assert.equal(((await call('model/list')).result as Json).configProblem, undefined);

    writeFileSync(file, '{ "agent": { "maxTurnsPerRun": "five" } }\n');
    const again = await h.prompt({ text: 'hello' });
    assert.match(String((again.response.error as Json).message), /agent\.maxTurnsPerRun \(line 1\)/);
  });
});
