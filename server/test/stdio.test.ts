/**
 * The built server as a child process, driven over real pipes. Every test also checks that
 * stdout held nothing but well-formed frames.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadExamples } from '../../scripts/examples.ts';
import { tempDir } from '../../scripts/temp-dirs.ts';
import { frame, type Json, SERVER_BIN, WireClient } from './helpers/wire.ts';

const workspace = tempDir('santra-stdio-');
const clients: WireClient[] = [];

function start(args: string[] = []): WireClient {
  const client = new WireClient(args);
  clients.push(client);
  return client;
}

afterEach(() => {
  for (const client of clients.splice(0)) {
    assert.deepEqual(client.strayOutput, [], 'stdout must carry protocol frames only');
    client.child.kill('SIGKILL');
  }
});

const error = (message: Json) => message.error as { code: number; message: string; data: Json };

/** README.md's "Talk to the server by hand", verbatim: one initialize, then end of input. */
const README_COMMAND = `body='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"0.1.0","clientInfo":{"name":"sh"},"workspaceRoot":"'"$PWD"'","capabilities":{}}}'
printf 'Content-Length: %d\\r\\n\\r\\n%s' "\${#body}" "$body" | node dist/santra-server.js`;

describe('santra-server over stdio', () => {
  test("README's by-hand pipe prints the initialize result before the server leaves on end of input", () => {
    const root = fileURLToPath(new URL('../..', import.meta.url));
    assert.ok(
      readFileSync(join(root, 'README.md'), 'utf8').includes(README_COMMAND),
      'README still has this command',
    );
    const home = tempDir('santra-home-');
    for (let run = 0; run < 3; run++) {
      const piped = spawnSync('bash', ['-c', README_COMMAND], {
        cwd: root,
        encoding: 'utf8',
        timeout: 10_000,
        env: { PATH: process.env.PATH, HOME: home, SANTRA_HOME: join(home, 'santra') },
      });
      assert.equal(piped.status, 1, `exit code 1 (no shutdown); stderr: ${piped.stderr}`);
      const [, header, body] = /^Content-Length: (\d+)\r\n\r\n(.*)$/s.exec(piped.stdout) ?? [];
      assert.ok(body !== undefined, `one frame on stdout, got ${JSON.stringify(piped.stdout.slice(0, 200))}`);
      assert.equal(Buffer.byteLength(body), Number(header));
      const response = JSON.parse(body) as Json;
      assert.equal(response.id, 1);
      assert.equal((response.result as Json).protocolVersion, '0.1.0');
    }
  });

  test('--version prints package and protocol versions; --help prints usage; a bad flag exits 2', () => {
    const version = spawnSync(process.execPath, [SERVER_BIN, '--version'], { encoding: 'utf8' });
    assert.equal(version.status, 0);
    assert.match(version.stdout, /^santra-server \d+\.\d+\.\d+ \(protocol \d+\.\d+\.\d+\)\n$/);
    const help = spawnSync(process.execPath, [SERVER_BIN, '--help'], { encoding: 'utf8' });
    assert.equal(help.status, 0);
    assert.match(help.stdout, /Usage: santra-server/);
    const bad = spawnSync(process.execPath, [SERVER_BIN, '--frobnicate'], { encoding: 'utf8' });
    assert.equal(bad.status, 2);
    assert.equal(bad.stdout, '');
    assert.match(bad.stderr, /Unknown option '--frobnicate'/);
  });

  test('handshake, shutdown and exit end with code 0', async () => {
    const client = start();
    const init = await client.initialize(workspace);
    const result = init.result as Json;
    assert.equal(result.protocolVersion, '0.1.0');
    assert.deepEqual(result.serverInfo, { name: 'santra-server', version: '0.1.0' });
    const capabilities = result.capabilities as Json;
    assert.ok((capabilities.methods as string[]).includes('shutdown'));
    assert.deepEqual(capabilities.limits, { maxMessageBytes: 16 * 1024 * 1024, maxConcurrentRequests: 64 });
    client.notify('initialized', {});
    client.request(2, 'shutdown');
    assert.deepEqual(await client.response(2), { jsonrpc: '2.0', id: 2, result: null });
    client.notify('exit');
    assert.deepEqual(await client.exit(), { code: 0, signal: null });
  });

  test('exit without shutdown ends with code 1', async () => {
    const client = start();
    await client.initialize(workspace);
    client.notify('exit');
    assert.equal((await client.exit()).code, 1);
  });

  test('closing stdin ends the server promptly: code 1 without shutdown, 0 after it', async () => {
    const plain = start();
    await plain.initialize(workspace);
    plain.child.stdin.end();
    assert.equal((await plain.exit(5_000)).code, 1);

    const polite = start();
    await polite.initialize(workspace);
    polite.request(2, 'shutdown');
    await polite.response(2);
    polite.child.stdin.end();
    assert.equal((await polite.exit(5_000)).code, 0);
  });

  test('requests before initialize get ServerNotInitialized; notifications are dropped', async () => {
    const client = start();
    client.notify('initialized');
    client.request(1, 'prompt', { text: 'hi' });
    assert.equal(error(await client.response(1)).code, -32002);
    const init = await client.initialize(workspace, 2);
    assert.ok(init.result);
  });

  test('an unsupported protocol version lists the supported ones and leaves the connection usable', async () => {
    const client = start();
    client.request(1, 'initialize', {
      protocolVersion: '2.0.0',
      clientInfo: { name: 'future' },
      workspaceRoot: workspace,
      capabilities: {},
    });
    const failure = error(await client.response(1));
    assert.equal(failure.code, -33000);
    assert.deepEqual(failure.data, { retryable: false, supported: ['0.2.0', '0.1.0'], requested: '2.0.0' });
    assert.ok((await client.initialize(workspace, 2)).result);
  });

  test('invalid params name the offending field; a missing workspace is refused', async () => {
    const client = start();
    client.request(1, 'initialize', {
      protocolVersion: '0.1.0',
      clientInfo: {},
      workspaceRoot: 'relative',
      capabilities: {},
    });
    const failure = error(await client.response(1));
    assert.equal(failure.code, -32602);
    assert.match(failure.message, /params\.clientInfo\.name is required \(expected string\)/);
    assert.match(failure.message, /params\.workspaceRoot: expected an absolute path/);
    assert.deepEqual(
      (failure.data.issues as Json[]).map((issue) => issue.path),
      ['params.clientInfo.name', 'params.workspaceRoot'],
    );
    const missing = join(workspace, 'does-not-exist');
    client.request(2, 'initialize', {
      protocolVersion: '0.1.0',
      clientInfo: { name: 'x' },
      workspaceRoot: missing,
      capabilities: {},
    });
    const refused = error(await client.response(2));
    assert.equal(refused.code, -32602);
    assert.match(refused.message, /does not exist/);
    const file = join(workspace, 'a-file');
    writeFileSync(file, 'x');
    client.request(3, 'initialize', {
      protocolVersion: '0.1.0',
      clientInfo: { name: 'x' },
      workspaceRoot: file,
      capabilities: {},
    });
    assert.match(error(await client.response(3)).message, /is not a directory/);
  });

  test('unknown methods get MethodNotFound, unknown notifications are ignored, a second initialize is refused', async () => {
    const client = start();
    await client.initialize(workspace);
    client.notify('santra/unheardOf', { x: 1 });
    client.request(2, 'santra/unheardOf', {});
    assert.equal(error(await client.response(2)).code, -32601);
    client.request(3, 'phase', {});
    assert.match(error(await client.response(3)).message, /server-to-client notification/);
    client.request(5, 'initialize', {
      protocolVersion: '0.1.0',
      clientInfo: { name: 'again' },
      workspaceRoot: workspace,
      capabilities: {},
    });
    assert.equal(error(await client.response(5)).code, -32600);
  });

  test('malformed JSON gets ParseError with id null and the next message is served', async () => {
    const client = start();
    client.write(frame('{"jsonrpc": "2.0", "id": 1, "method": '));
    const parse = await client.response(null);
    assert.equal(error(parse).code, -32700);
    client.write(frame(Buffer.from([0xff, 0xfe, 0x7b]).toString('latin1')));
    assert.equal(error(await client.response(null)).code, -32700);
    assert.ok((await client.initialize(workspace, 2)).result);
  });

  test('non-objects, batches, null ids and a wrong jsonrpc get InvalidRequest', async () => {
    const client = start();
    for (const body of [
      '42',
      '"text"',
      'null',
      '[{"jsonrpc":"2.0","id":1,"method":"shutdown"}]',
      '{"jsonrpc":"2.0","id":null,"method":"shutdown"}',
    ]) {
      client.write(frame(body));
      const failure = await client.response(null);
      assert.equal(error(failure).code, -32600, body);
    }
    client.send({ jsonrpc: '1.0', id: 7, method: 'initialize' });
    assert.equal(error(await client.response(7)).code, -32600);
    assert.ok((await client.initialize(workspace, 8)).result);
  });

  for (const [name, header] of [
    ['a non-numeric Content-Length', 'Content-Length: 2abc\r\n\r\n'],
    ['a negative Content-Length', 'Content-Length: -5\r\n\r\n'],
    ['a missing Content-Length', 'Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n'],
    ['a header line without a colon', 'Content-Length 10\r\n\r\n'],
  ] as const) {
    test(`${name} closes the connection with exit code 3 and a clear message`, async () => {
      const client = start();
      await client.initialize(workspace);
      client.write(`${header}{"jsonrpc":"2.0","id":2,"method":"shutdown"}`);
      const { code } = await client.exit(5_000);
      assert.equal(code, 3);
      assert.match(client.stderr, /framing error: .*cannot be resynchronised/);
      const notice = await client.response(null);
      assert.equal(error(notice).code, -32700);
      assert.equal(
        client.messages.filter((m) => m.id === 2).length,
        0,
        'nothing after the bad header is served',
      );
    });
  }

  test('an oversized message is refused without buffering it, answered with its id, and the stream stays in sync', async () => {
    // Large enough for the initialize result, which the server may not exceed either.
    const client = start(['--max-message-bytes', '8192']);
    await client.initialize(workspace);
    const huge = JSON.stringify({
      jsonrpc: '2.0',
      id: 2,
      method: 'prompt',
      params: { text: 'x'.repeat(10_000) },
    });
    client.write(frame(huge));
    const failure = error(await client.response(2));
    assert.equal(failure.code, -33001);
    assert.deepEqual(failure.data, { retryable: false, limit: 8192, size: huge.length });
    client.request(3, 'shutdown');
    assert.deepEqual((await client.response(3)).result, null);
  });

  test('a Content-Length too large even to skip ends the connection at once: exit 3 and a clear message', async () => {
    const client = start();
    await client.initialize(workspace);
    client.write('Content-Length: 99999999999\r\n\r\n');
    client.request(2, 'shutdown');
    assert.equal((await client.exit(5_000)).code, 3);
    assert.match(
      client.stderr,
      /framing error: Content-Length 99999999999 exceeds 1073741824 bytes, the most the server will skip/,
    );
    assert.equal(error(await client.response(null)).code, -33001);
    assert.equal(client.messages.filter((m) => m.id === 2).length, 0, 'nothing after it is read');
  });

  test('a 20 MiB message against the default limit is refused, not buffered', async () => {
    const client = start();
    await client.initialize(workspace);
    const length = 20 * 1024 * 1024;
    client.write(`Content-Length: ${length}\r\n\r\n`);
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    for (let i = 0; i < 20; i++) client.write(chunk);
    assert.equal(error(await client.response(null)).code, -33001);
    client.request(2, 'shutdown');
    assert.deepEqual((await client.response(2)).result, null);
  });

  test('$/cancelRequest for an unknown id or with bad params is ignored and the server keeps serving', async () => {
    const client = start();
    await client.initialize(workspace);
    client.notify('$/cancelRequest', { id: 999 });
    client.notify('$/cancelRequest');
    client.notify('$/cancelRequest', { id: { nested: true } });
    client.request(2, 'shutdown');
    assert.deepEqual((await client.response(2)).result, null);
    assert.match(client.stderr, /ignored \$\/cancelRequest without a valid "id"/);
  });

  test('a request cancelled before it was dispatched is still answered, and the server serves on', async () => {
    const client = start();
    const init = frame({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '0.1.0',
        clientInfo: { name: 'x' },
        workspaceRoot: workspace,
        capabilities: {},
      },
    });
    client.write(
      Buffer.concat([init, frame({ jsonrpc: '2.0', method: '$/cancelRequest', params: { id: 1 } })]),
    );
    const answer = await client.response(1);
    assert.ok(answer.result !== undefined || error(answer).code === -32800, JSON.stringify(answer));
    client.request(
      2,
      answer.result === undefined ? 'initialize' : 'shutdown',
      answer.result === undefined
        ? { protocolVersion: '0.1.0', clientInfo: { name: 'x' }, workspaceRoot: workspace, capabilities: {} }
        : undefined,
    );
    assert.equal((await client.response(2)).error, undefined);
  });

  test('id 0 is an id like any other; methods.json paramsRequired is what the server enforces', async () => {
    const client = start();
    const init = await client.initialize(workspace, 0);
    assert.equal(init.id, 0);
    assert.equal((init.result as Json).protocolVersion, '0.1.0');
    const table = JSON.parse(
      readFileSync(
        fileURLToPath(new URL('../../protocol-spec/schema/methods.json', import.meta.url)),
        'utf8',
      ),
    ) as { methods: { method: string; direction: string; kind: string; paramsRequired: boolean }[] };
    const requests = table.methods.filter(
      (m) =>
        m.kind === 'request' &&
        m.direction !== 'server_to_client' &&
        !['initialize', 'shutdown'].includes(m.method),
    );
    assert.ok(requests.some((m) => m.method === 'model/list' && !m.paramsRequired));
    assert.ok(requests.some((m) => m.method === 'model/set' && m.paramsRequired));
    let id = 1;
    for (const { method, paramsRequired } of requests) {
      client.request(id, method);
      const answer = await client.response(id++);
      const code = (answer.error as Json | undefined)?.code;
      if (paramsRequired) assert.equal(code, -32602, `${method} without params is InvalidParams`);
      else assert.notEqual(code, -32602, `${method} accepts absent params: ${JSON.stringify(answer)}`);
    }
    client.request(id, 'shutdown');
    assert.equal((await client.response(id)).result, null);
  });

  test('requests after shutdown get InvalidRequest', async () => {
    const client = start();
    await client.initialize(workspace);
    client.request(2, 'shutdown');
    await client.response(2);
    client.request(3, 'initialize', {
      protocolVersion: '0.1.0',
      clientInfo: { name: 'x' },
      workspaceRoot: workspace,
      capabilities: {},
    });
    assert.equal(error(await client.response(3)).code, -32600);
    client.notify('exit');
    assert.equal((await client.exit()).code, 0);
  });

  test('frames split at every byte, and several frames in one write, are read correctly', async () => {
    const client = start();
    const init = frame({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '0.1.0',
        clientInfo: { name: 'bytewise ✓' },
        workspaceRoot: workspace,
        capabilities: {},
      },
    });
    for (const byte of init) {
      client.write(Buffer.from([byte]));
      await new Promise((resolve) => setImmediate(resolve));
    }
    assert.ok((await client.response(1)).result);
    client.write(
      Buffer.concat([
        frame({ jsonrpc: '2.0', id: 2, method: 'santra/nope' }),
        frame({ jsonrpc: '2.0', id: 3, method: 'shutdown' }),
      ]),
    );
    assert.equal(error(await client.response(2)).code, -32601);
    assert.deepEqual((await client.response(3)).result, null);
  });
});

/** The provider list depends on the machine's keys and the catalog; the example shows an excerpt. */
function withoutProviders(message: Json): Json {
  const capabilities = (message.result as Json | undefined)?.capabilities as Json | undefined;
  if (capabilities === undefined) return message;
  assert.ok(Array.isArray(capabilities.providers));
  // What the sandbox can do depends on the machine, as the providers depend on the environment.
  const { providers: _providers, sandbox: _sandbox, ...rest } = capabilities;
  return { ...message, result: { ...(message.result as Json), capabilities: rest } };
}

describe('the example exchanges of the spec, replayed against the real server', async () => {
  const examples = await loadExamples(
    fileURLToPath(new URL('../../protocol-spec/examples', import.meta.url)),
  );
  // The examples with a model are checked through their recordings: scripts/test/examples-replay.test.ts.
  for (const example of examples.filter((e) =>
    ['lifecycle', 'version-mismatch', 'errors'].includes(e.name),
  )) {
    test(`${example.file}: the server sends exactly the example's messages`, async () => {
      const client = start();
      const local = (value: unknown): Json =>
        JSON.parse(JSON.stringify(value).replaceAll('/home/ada/project', workspace)) as Json;
      for (const line of example.lines) {
        if (line.from === 'client' && line.raw !== undefined) client.write(frame(line.raw));
        else if (line.from === 'client' && line.message) client.send(local(line.message));
        else if (line.from === 'server' && line.message) {
          const expected = withoutProviders(local(line.message));
          assert.deepEqual(withoutProviders(await client.response(expected.id as number | null)), expected);
        }
      }
      if (example.lines.at(-1)?.message?.method === 'exit') assert.equal((await client.exit()).code, 0);
      assert.deepEqual(client.messages, [], 'no messages beyond the example');
    });
  }
});
