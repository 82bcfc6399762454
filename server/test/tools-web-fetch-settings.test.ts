/** The config's tools.webFetch.allowPrivateNetwork reaches web_fetch through the tool context. */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, test } from 'node:test';
import { webFetchTool } from '../src/tools/web-fetch.ts';
import { tempWorkspace, testContext } from './helpers/tool-context.ts';

const server = createServer((_request, response) => {
  response.writeHead(200, { 'content-type': 'text/plain' });
  response.end('intranet page');
});
server.listen(0, '127.0.0.1');
await once(server, 'listening');
after(() => server.close());
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;

test('web_fetch refuses loopback by default and reaches it when the settings allow private networks', async () => {
  const tool = webFetchTool();
  const root = await tempWorkspace();
  const refused = await tool.execute({ url }, await testContext(root));
  assert.equal(refused.isError, true);
  assert.doesNotMatch(refused.output, /intranet page/);
  const allowed = await tool.execute(
    { url },
    await testContext(root, { settings: { allowPrivateNetwork: true } }),
  );
  assert.equal(allowed.isError, undefined);
  assert.match(allowed.output, /intranet page/);
});
