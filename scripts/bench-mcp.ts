/**
 * MCP context-bill benchmark: what a 100-tool MCP server costs in every model request, with all
 * its schemas offered up front and with search_mcp_tools (server/src/mcp/tool-search.ts).
 *   npm run build && node scripts/bench-mcp.ts [--prompts 5] [--tools 100] [--timeout 300]
 * The built server, a fake Anthropic provider on 127.0.0.1, and a real MCP server over stdio with
 * N tools whose schemas look like a real API's (server/test/helpers/mcp-servers.ts `many`). One
 * session of P prompts to the executor; each prompt calls one MCP tool and answers, and in the
 * search run the first prompt first searches for it (one more model call). The provider's
 * recorded requests give what was sent: the tools' definitions and the whole request, in tokens
 * estimated at 4 characters a token (JSON). Printed, never enforced; results go in
 * docs/performance.md ("MCP tools and the context").
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  type FakeTurn,
  type RecordedRequest,
  startFakeProvider,
} from '../conformance-tests/src/fake-providers/index.ts';
import { MCP_SERVERS_SCRIPT } from '../server/test/helpers/mcp-servers.ts';
import { installGuards, setStep } from './bench/processes.ts';
import { BenchClient, type Json } from './bench/protocol-client.ts';
import { removeTempDir, tempDir } from './temp-dirs.ts';

const { values } = parseArgs({
  options: {
    prompts: { type: 'string', default: '5' },
    tools: { type: 'string', default: '100' },
    timeout: { type: 'string', default: '300' },
  },
});
const PROMPTS = Number(values.prompts);
const TOOLS = Number(values.tools);
if (!Number.isInteger(PROMPTS) || PROMPTS < 1 || !Number.isInteger(TOOLS) || TOOLS < 1) {
  console.error('--prompts and --tools take whole numbers from 1');
  process.exit(2);
}
installGuards(Number(values.timeout));

const MODEL = 'anthropic/claude-sonnet-4-5';
const CHARS_PER_TOKEN = 4;
const TOOL = 'mcp__gh__create_issue';
const SEARCH = 'search_mcp_tools';

const tokens = (value: unknown) => Math.ceil(JSON.stringify(value).length / CHARS_PER_TOKEN);

function turns(search: boolean): FakeTurn[] {
  const call = (n: number): FakeTurn[] => [
    { toolCalls: [{ name: TOOL, args: { owner: 'santra', repo: 'santra', title: `Issue ${n}` } }] },
    { text: `Created issue ${n}.` },
  ];
  const first: FakeTurn[] = search
    ? [{ toolCalls: [{ name: SEARCH, args: { query: 'create issue' } }] }]
    : [];
  return [...first, ...Array.from({ length: PROMPTS }, (_, n) => call(n + 1)).flat()];
}

interface Measured {
  requests: number;
  /** Tokens of the tools' definitions, per request. */
  toolTokens: number[];
  /** Tokens of each whole request (system, messages, tools). */
  requestTokens: number[];
  toolSearch: boolean;
}

async function session(share: number): Promise<Measured> {
  const search = share < 1;
  const home = tempDir('santra-bench-mcp-');
  const workspace = join(home, 'ws');
  mkdirSync(join(home, 'santra'), { recursive: true, mode: 0o700 });
  mkdirSync(workspace, { recursive: true });
  writeFileSync(
    join(home, 'santra', 'config.json'),
    JSON.stringify({
      mcpServers: {
        // policy allow: the calls need no approval (this client answers none).
        gh: { command: process.execPath, args: [MCP_SERVERS_SCRIPT, 'many', String(TOOLS)], policy: 'allow' },
      },
      mcp: { toolSearchShare: share },
    }),
    { mode: 0o600 },
  );
  const fake = await startFakeProvider('anthropic', turns(search));
  const client = new BenchClient({
    env: {
      PATH: process.env.PATH,
      HOME: home,
      SANTRA_HOME: join(home, 'santra'),
      SANTRA_MEMORY_AUTO_EXTRACT: '0',
      ANTHROPIC_API_KEY: 'sk-ant-bench',
      ANTHROPIC_BASE_URL: fake.url,
      SANTRA_MODEL: MODEL,
    },
    cwd: workspace,
  });
  try {
    await client.initialize(workspace);
    setStep('waiting for the MCP server');
    let list: Json;
    for (;;) {
      list = (await client.request('mcp/list', {})).message.result as Json;
      const state = ((list.servers as Json[])[0] ?? {}).state;
      if (state === 'connected') break;
      if (state !== 'connecting')
        throw new Error(`the MCP server is ${String(state)}: ${JSON.stringify(list)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    let sessionId: string | undefined;
    for (let n = 0; n < PROMPTS; n++) {
      setStep(`${search ? 'search' : 'all up front'}: prompt ${n + 1} of ${PROMPTS}`);
      const { message } = await client.request('prompt', {
        text: `Open issue ${n + 1}`,
        agent: 'executor',
        ...(sessionId === undefined ? {} : { sessionId }),
      });
      const result = message.result as Json;
      if (result.status !== 'completed') throw new Error(`prompt ${n + 1} ended ${String(result.status)}`);
      sessionId = result.sessionId as string;
    }
    const requests: RecordedRequest[] = [...fake.requests];
    const failed = requests.length !== turns(search).length;
    if (failed) throw new Error(`${requests.length} model calls for ${turns(search).length} turns`);
    return {
      requests: requests.length,
      toolTokens: requests.map((r) => tokens((r.body as Json).tools ?? [])),
      requestTokens: requests.map((r) => tokens(r.body)),
      toolSearch: list.toolSearch === true,
    };
  } finally {
    await client.close();
    await fake.close();
    await removeTempDir(home);
  }
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
const all = await session(1);
const searched = await session(0);
const row = (label: string, m: Measured) =>
  `| ${label} | ${m.requests} | ${m.toolTokens[0]?.toLocaleString('en')} | ${m.toolTokens.at(-1)?.toLocaleString('en')} | ${sum(m.toolTokens).toLocaleString('en')} | ${sum(m.requestTokens).toLocaleString('en')} |`;
console.log(
  `MCP server with ${TOOLS} tools, ${PROMPTS} prompts to the executor (${MODEL}); tokens ≈ JSON chars / ${CHARS_PER_TOKEN}`,
);
console.log('');
console.log(
  '| MCP tools offered | model calls | tool tokens, first call | tool tokens, last call | tool tokens, session | request tokens, session |',
);
console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
console.log(row('all up front (toolSearchShare 1)', all));
console.log(row('search_mcp_tools (toolSearchShare 0)', searched));
const saved = sum(all.requestTokens) - sum(searched.requestTokens);
console.log('');
console.log(
  `Saved: ${saved.toLocaleString('en')} tokens over the session (${((100 * saved) / sum(all.requestTokens)).toFixed(1)} % of what was sent), ` +
    `${(all.toolTokens[0] ?? 0) - (searched.toolTokens[0] ?? 0)} tokens on each request before the search; ` +
    `the ${TOOLS} schemas are ${((100 * (all.toolTokens[0] ?? 0)) / 200_000).toFixed(1)} % of a 200k context. ` +
    `mcp/list toolSearch: ${all.toolSearch} / ${searched.toolSearch}.`,
);
process.exit(0);
