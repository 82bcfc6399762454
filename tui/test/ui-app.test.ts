/**
 * The whole UI (App and its Controller) with ink-testing-library, on a scripted Backend instead of
 * a server: the composer and its slash suggestions, queued messages, the agent tree, Esc, Ctrl+C
 * twice, the first-run setup.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import { cleanup } from 'ink-testing-library';
import type { ModelEntry } from '#protocol';
import type { SetupChoice } from '../src/ui/components/setup-flow.ts';
import { PrintError } from '../src/client/print-error.ts';
import { HELP, KEYS } from '../src/ui/keybindings.ts';
import { PRINT_CHARS } from '../src/ui/ui-state.ts';
import { MODELS, scripted, start } from './helpers/ui-backend.ts';

afterEach(() => cleanup());

const ESC = '\u001b';
const UP = '\u001b[A';
const DOWN = '\u001b[B';
const CTRL_C = '\u0003';

describe('the interactive UI', () => {
  test('the ChromeBar shows project, model, session, tokens and cost', async () => {
    const ui = await start();
    assert.match(ui.frame(), /project · anthropic\/claude-sonnet-4-5 · new session · 0 tokens · \$0\.0000/);
    await ui.type('hi');
    await ui.type('\r');
    ui.server.phase({ type: 'text', text: 'Hello **there**.' });
    ui.server.end();
    await ui.settled();
    assert.match(ui.frame(), /session 12345678 · 1\.2k in \/ 34 out · \$0\.0042/);
    assert.match(ui.frame(), /› hi/);
    assert.match(ui.frame(), /Hello there\./);
    assert.match(ui.frame(), /── done · .*1\.2k in, 34 out · \$0\.0042/);
  });

  test("while a run goes on, its usage phases show the session's cost, cache hits and budget as they grow", async () => {
    const ui = await start();
    await ui.type('hi');
    await ui.type('\r');
    const usage = { inputTokens: 200, outputTokens: 30, cacheReadTokens: 5_000, cacheWriteTokens: 0 };
    ui.server.phase({
      type: 'usage',
      usage,
      costUsd: 0.0031,
      runUsage: usage,
      runCostUsd: 0.0031,
      sessionCostUsd: 0.1031,
      cacheHitRatio: 5_000 / 5_200,
      budget: { scope: 'run', limitUsd: 1, spentUsd: 0.0031 },
    });
    await ui.shows(/\$0\.1031 · budget \$0\.0031\/\$1\.00/);
    ui.server.end();
    await ui.settled();
    // After the run, the result's figures; the budget is the run's, so it goes with it.
    assert.match(ui.frame(), /1\.2k in \/ 34 out · \$0\.0042$/m);
    await ui.type('/cost');
    await ui.type('\r');
    assert.match(
      ui.frame(),
      /Tokens: {2}1200 in, 34 out, 0 cache read, 0 cache write; cost \$0\.0042\nLast run: 1200 in, 34 out; cost \$0\.0042/,
    );
  });

  test('while a fallback model answers, the bar names it, and the configured model again after the run', async () => {
    const ui = await start();
    await ui.type('hi');
    await ui.type('\r');
    const usage = { inputTokens: 100, outputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0 };
    const phase = {
      type: 'usage',
      usage,
      costUsd: 0.001,
      runUsage: usage,
      runCostUsd: 0.001,
      sessionCostUsd: 0.001,
    };
    ui.server.phase({ ...phase, model: 'openai/gpt-5' });
    await ui.shows(/project · openai\/gpt-5 \(fallback for anthropic\/claude-sonnet-4-5\) · /);
    // A call of the run's own model again (the usage phase names no model): the configured one.
    ui.server.phase(phase);
    await ui.shows(/project · anthropic\/claude-sonnet-4-5 · /);
    ui.server.phase({ ...phase, model: 'openai/gpt-5' });
    await ui.shows(/fallback for/);
    ui.server.end();
    await ui.settled();
    assert.match(ui.frame(), /project · anthropic\/claude-sonnet-4-5 · /);
    assert.doesNotMatch(ui.frame(), /fallback for/);
  });

  test('a turn an event started: a run of its own with its done line and the totals; Esc stops it with session/cancel', async () => {
    const server = scripted({ answers: { 'session/cancel': () => ({ cancelled: true, runId: 'run-1' }) } });
    const ui = await start(server);
    const event = {
      type: 'event',
      eventId: 'evt_1',
      source: 'ci',
      text: 'Build 9 failed',
      delivery: 'started',
    };
    const usage = { inputTokens: 500, outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0 };
    ui.server.phase(event, 'event');
    ui.server.phase({ type: 'text', text: 'Looking at build 9.' });
    await ui.shows(/Esc stops the run/);
    // What the user types meanwhile waits for it.
    await ui.type('and now?\r');
    await ui.shows(/⏳ queued: and now\?/);
    assert.equal(server.prompts.length, 0);
    ui.server.phase({
      type: 'usage',
      usage,
      costUsd: 0.002,
      runUsage: usage,
      runCostUsd: 0.002,
      sessionCostUsd: 0.0125,
    });
    ui.server.phase({
      type: 'complete',
      status: 'completed',
      output: 'Looking at build 9.',
      usage,
      costUsd: 0.002,
    });
    await ui.shows(/── done · .*500 in, 20 out · \$0\.0020/);
    // The bar has the session's totals, and the message that waited is sent.
    await ui.shows(/session 12345678 · 500 in \/ 20 out · \$0\.0125/);
    await ui.until(() => server.prompts.length === 1, 'the queued message to be sent');
    assert.equal(server.prompts[0]?.text, 'and now?');
    server.end();
    await ui.settled();

    // A second one, stopped with Esc: no prompt of the UI's to cancel, so session/cancel.
    ui.server.phase(event, 'event');
    ui.server.phase({ type: 'text', text: 'Checking.' });
    await ui.shows(/Esc stops the run/);
    await ui.type('\u001b');
    await ui.until(() => server.requests.some((r) => r.method === 'session/cancel'), 'session/cancel');
    assert.deepEqual(server.requests.find((r) => r.method === 'session/cancel')?.params, {
      sessionId: 'ses_12345678abc',
    });
    assert.equal(server.cancelled(), 0, 'no prompt of the UI was cancelled');
    ui.server.phase({ type: 'complete', status: 'cancelled', output: '' });
    await ui.shows(/── cancelled/);
  });

  test('/mcp logout NAME forgets that server’s sign-in and shows the URL to sign in again', async () => {
    const server = scripted({
      methods: ['prompt', 'mcp/list', 'mcp/logout'],
      answers: {
        'mcp/logout': () => ({
          signedOut: true,
          revocation: {
            revoked: false,
            why: 'its authorization server offers no way to revoke them (RFC 7009)',
          },
          server: {
            name: 'docs',
            scope: 'user',
            source: '/c.json',
            transport: 'http',
            state: 'needs_auth',
            authUrl: 'http://127.0.0.1:9/authorize?x=1',
            tools: [],
            prompts: [],
            resources: 0,
          },
        }),
      },
    });
    const ui = await start(server);
    ui.controller.submit('/mcp logout docs');
    // The note wraps at the terminal's width: its sentences, with any spacing between words.
    await ui.shows(/Signed out of docs: its sign-in is removed\. Its tokens were not revoked/);
    assert.match(
      ui.frame().replace(/\s+/g, ' '),
      /they stay valid at the server until they expire\. To sign in again, open:/,
    );
    assert.deepEqual(server.requests.at(-1), { method: 'mcp/logout', params: { server: 'docs' } });
    ui.controller.submit('/mcp frobnicate');
    await ui.shows(/\/mcp takes nothing, or "logout NAME" \(got "frobnicate"\)/);
  });

  test('slash commands are suggested as you type; Tab completes; Enter runs the chosen one', async () => {
    const ui = await start();
    await ui.type('/mo');
    assert.match(ui.frame(), /› \/model \[provider\/model\] {2}choose the model/);
    assert.match(ui.frame(), /\/models {2}list the models/);
    assert.doesNotMatch(ui.frame(), /\/help/);
    await ui.type('\t');
    assert.match(ui.frame(), /› \/model /);
    assert.doesNotMatch(ui.frame(), /\/models/);
    await ui.type('\u0015'); // Ctrl+U clears
    await ui.type('/he');
    await ui.type('\r');
    assert.match(ui.frame(), /Commands:/);
    assert.match(ui.frame(), /\/exit, \/quit/);
    assert.match(ui.frame(), /Esc +stop the running run/);
  });

  test('/model opens the ModelSelector, grouped by provider, with context and prices', async () => {
    const ui = await start();
    await ui.type('/model');
    await ui.type('\r');
    await ui.settled();
    const frame = ui.frame();
    assert.match(frame, /Choose the model/);
    assert.match(frame, /│ anthropic +│\n│ › \* claude-sonnet-4-5 {2}200k context, \$3\/\$15 per Mtok/);
    assert.match(frame, /│ openai +│\n│ {3}gpt-5 {2}400k context — no key/);
    await ui.type(ESC); // Ink holds a lone Esc briefly (is a sequence coming?): wait for its effect
    await ui.until(() => !ui.frame().includes('Choose the model'), 'the picker to close');
  });

  test('a message typed while a run goes on is queued, shown, and sent after it', async () => {
    const ui = await start();
    await ui.type('first');
    await ui.type('\r');
    assert.equal(ui.server.prompts.length, 1);
    await ui.type('second');
    await ui.type('\r');
    assert.equal(ui.server.prompts.length, 1);
    assert.match(ui.frame(), /⏳ queued: second/);
    ui.server.end();
    await ui.settled();
    assert.equal(ui.server.prompts.length, 2);
    assert.equal(ui.server.prompts[1]?.text, 'second');
    assert.equal(ui.server.prompts[1]?.sessionId, 'ses_12345678abc');
    assert.doesNotMatch(ui.frame(), /queued/);
    // History: ↑ recalls what was sent.
    await ui.type(UP);
    assert.match(ui.frame(), /› second/);
  });

  test('keys typed faster than read (one chunk): each Enter sends its line; a paste keeps its breaks', async () => {
    const ui = await start();
    await ui.type('first\rsecond line \\\rcontinued\rdraft');
    assert.equal(ui.server.prompts.length, 1);
    assert.equal(ui.server.prompts[0]?.text, 'first');
    assert.match(ui.frame(), /⏳ queued: second line continued/);
    assert.match(ui.frame(), /› draft/);
    ui.server.end();
    await ui.settled();
    assert.equal(ui.server.prompts[1]?.text, 'second line \ncontinued');
    ui.server.end();
    await ui.settled();
    // A bracketed paste: its carriage returns are line breaks in the message, not Enters.
    await ui.type('\u0015');
    await ui.type('\u001b[200~one\rtwo\u001b[201~');
    assert.equal(ui.server.prompts.length, 2);
    assert.match(ui.frame(), /› one +│\n│ {3}two/);
    await ui.type('\r');
    assert.equal(ui.server.prompts[2]?.text, 'one\ntwo');
  });

  test('the agent tree: sub-agents indented under their parent, a spinner while it runs', async () => {
    const ui = await start();
    await ui.type('read the config');
    await ui.type('\r');
    ui.server.phase({ type: 'status', text: 'Planning' });
    ui.server.phase({
      type: 'tool_call',
      toolCallId: 'o1',
      toolName: 'spawn_agent',
      args: {},
      summary: 'spawn_agent reader',
    });
    ui.server.phase({ type: 'section', title: 'Reader: read config.txt' }, 'reader-1', 'orchestrator');
    ui.server.phase(
      {
        type: 'tool_call',
        toolCallId: 'r1',
        toolName: 'read_file',
        args: {},
        summary: 'read_file config.txt',
      },
      'reader-1',
      'orchestrator',
    );
    await ui.settled();
    let frame = ui.frame();
    assert.match(frame, /^▸ Reader: read config\.txt$/m);
    assert.match(frame, /^… spawn_agent reader$/m);
    assert.match(frame, /^ {2}… read_file config\.txt$/m);
    assert.match(frame, /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] Planning \(\ds · /);
    ui.server.phase(
      { type: 'tool_result', toolCallId: 'r1', toolName: 'read_file', status: 'ok', summary: '1 line' },
      'reader-1',
      'orchestrator',
    );
    ui.server.phase(
      { type: 'complete', status: 'completed', output: 'debug=false' },
      'reader-1',
      'orchestrator',
    );
    ui.server.phase({
      type: 'tool_result',
      toolCallId: 'o1',
      toolName: 'spawn_agent',
      status: 'ok',
      summary: 'reader-1: completed',
    });
    ui.server.end();
    await ui.settled();
    frame = ui.frame();
    assert.match(frame, /^ {2}✓ read_file config\.txt — 1 line$/m);
    assert.match(frame, /^ {2}└ reader-1 completed$/m);
    assert.match(frame, /^✓ spawn_agent reader — reader-1: completed$/m);
    assert.doesNotMatch(frame, /Planning/);
  });

  test('Esc stops the running run; Ctrl+C twice exits', async () => {
    const ui = await start();
    await ui.type('go');
    await ui.type('\r');
    await ui.type(ESC);
    await ui.until(() => ui.server.cancelled() === 1, 'the run to be cancelled');
    assert.match(ui.frame(), /Stopping…/);
    ui.server.end('cancelled');
    await ui.settled();
    assert.match(ui.frame(), /── cancelled/);
    await ui.type(CTRL_C);
    assert.match(ui.frame(), /Press Ctrl\+C again to exit/);
    assert.equal(ui.exited(), 0);
    await ui.type(CTRL_C);
    assert.equal(ui.exited(), 1);
    assert.equal(ui.server.closed(), 1);
  });

  test('the live region stays shorter than the terminal, however long the streamed text', async () => {
    const ui = await start();
    await ui.type('tell me everything');
    await ui.type('\r');
    // One long paragraph (no blank line): it all stays in the live tail until it ends.
    for (let i = 0; i < 50; i++) ui.server.phase({ type: 'text', text: `line ${i} `.repeat(30) + '\n' });
    await ui.settled();
    const frame = ui.frame();
    const live = frame.slice(frame.indexOf('› tell me everything') + '› tell me everything'.length);
    assert.ok(live.split('\n').length < 30, `${live.split('\n').length} rows:\n${live}`);
    assert.match(live, /line 49/);
  });

  test('a long plain paragraph is printed row by row while it streams: the live part keeps only its last row', async () => {
    const ui = await start();
    await ui.type('write a lot');
    await ui.type('\r');
    const words = Array.from({ length: 800 }, (_, i) => `w${i}`);
    for (const word of words) ui.server.phase({ type: 'text', text: `${word} ` });
    await ui.settled();
    const live = ui.controller.getState().transcript.agents.values().next().value?.markdown.text ?? '';
    assert.ok(live.length > 0 && live.length < 3 * 100, `live: ${live.length} characters`);
    ui.server.end();
    await ui.settled();
    const frame = ui.frame();
    // Every word once, in order, on rows that fit the terminal.
    assert.deepEqual(frame.match(/\bw\d+\b/g), words);
    for (const row of frame.split('\n')) assert.ok(row.length <= 100, row);
  });

  test('every key of a chunk counts: arrows in one write move the model picker and walk the history', async () => {
    const ui = await start(scripted({ models: manyModels(5), initial: 'anthropic/model-1' }));
    await ui.type('/model');
    await ui.type('\r');
    await ui.settled();
    assert.match(ui.frame(), /› \* model-1 /);
    await ui.type(`${DOWN}${DOWN}${DOWN}`);
    assert.match(ui.frame(), /› model-4 /);
    await ui.type(`${UP}\r`);
    assert.match(ui.frame(), /Model: anthropic\/model-3/);
    for (const text of ['one', 'two', 'three']) {
      await ui.type(text);
      await ui.type('\r');
      ui.server.end();
      await ui.settled();
    }
    await ui.type(`${UP}${UP}${UP}`);
    assert.match(ui.frame(), /› one/);
    await ui.type(`${DOWN}${DOWN}`);
    assert.match(ui.frame(), /› three/);
  });

  test('first run: the model list starts on the provider’s default model, not its first', async () => {
    const models = manyModels(3).map((model) => ({ ...model, configured: false }));
    const choices: SetupChoice[] = [];
    const ui = await start(
      scripted({
        models,
        initial: '',
        defaultModels: new Map([['anthropic', 'anthropic/model-2']]),
        ...savesSetup(choices),
      }),
    );
    await ui.type('\r');
    await ui.type('sk-ant-secret');
    await ui.type('\r');
    assert.match(ui.frame(), /Model \(anthropic\)/);
    assert.match(ui.frame(), /› model-2 /);
    await ui.type('\r');
    await ui.settled();
    assert.equal(choices[0]?.model, 'anthropic/model-2');
  });

  test("first run: whether a provider needs a key is the server's word (ProviderInfo.needsKey), not a list in the client", async () => {
    const models = manyModels(2).map((model) => ({ ...model, configured: false }));
    const ui = await start(
      scripted({
        models,
        initial: '',
        defaultModels: new Map([
          ['anthropic', 'anthropic/model-1'],
          ['mybox', 'mybox/local-model'],
          ['ollama', 'ollama/qwen2.5-coder'],
        ]),
        keyless: new Set(['mybox']),
        ...savesSetup([]),
      }),
    );
    assert.match(ui.frame(), /mybox {2}serves its own models, no key needed/);
    assert.doesNotMatch(ui.frame(), /ollama[^\n]*no key needed/);
  });

  test('first run: a provider Santra lists no models for (Ollama) is offered with its default model', async () => {
    const models = manyModels(2).map((model) => ({ ...model, configured: false }));
    const choices: SetupChoice[] = [];
    const ui = await start(
      scripted({
        models,
        initial: '',
        defaultModels: new Map([
          ['anthropic', 'anthropic/model-1'],
          ['ollama', 'ollama/qwen2.5-coder'],
        ]),
        ...savesSetup(choices),
      }),
    );
    assert.match(ui.frame(), /ollama {2}serves its own models, no key needed/);
    await ui.type(`${DOWN}\r`);
    await ui.type('\r'); // no key
    assert.match(ui.frame(), /› qwen2\.5-coder {2}its default model; any model the server serves works/);
    await ui.type('\r');
    await ui.settled();
    assert.deepEqual(choices, [{ provider: 'ollama', apiKey: '', model: 'ollama/qwen2.5-coder' }]);
  });

  test('a burst of text is printed over several frames, PRINT_CHARS at most each, all of it once', async () => {
    const ui = await start();
    await ui.type('hi');
    await ui.type('\r');
    const words = Array.from({ length: 12_000 }, (_, i) => `w${i}`);
    ui.server.phase({ type: 'text', text: `${words.join(' ')} ` }); // one delta: a server's backlog
    ui.controller.flush();
    const printedText = () =>
      ui.controller
        .getState()
        .printed.items.map((entry) => ('text' in entry ? entry.text : ''))
        .join('\n');
    const first = printedText().length;
    assert.ok(first > 0 && first <= PRINT_CHARS, `first frame printed ${first} characters`);
    // Each flush prints the next part of the backlog, as the frames the clock would draw do.
    ui.server.end();
    await ui.until(() => printedText().includes(` ${words.at(-1)}`), 'the last word printed');
    const all = printedText().match(/\bw\d+\b/g) ?? [];
    assert.deepEqual(all, words);
  });

  test('first run: no usable model, so the SetupFlow asks provider, key (masked) and model; the server saves it', async () => {
    const unconfigured = MODELS.map((model) => ({ ...model, configured: false }));
    const choices: SetupChoice[] = [];
    const server = scripted({ models: unconfigured, initial: '', ...savesSetup(choices) });
    let connects = 0;
    const connect = server.connect;
    server.connect = (handlers) => {
      connects++;
      return connect(handlers);
    };
    const ui = await start(server);
    assert.match(ui.frame(), /Welcome to santra/);
    assert.match(ui.frame(), /› anthropic {2}1 model\b/);
    await ui.type('\r');
    assert.match(ui.frame(), /API key for anthropic/);
    await ui.type('sk-ant-secret');
    assert.doesNotMatch(ui.frame(), /sk-ant-secret/);
    assert.match(ui.frame(), /Key: •{13}/);
    await ui.type('\r');
    assert.match(ui.frame(), /Model \(anthropic\)/);
    await ui.type('\r');
    await ui.settled();
    assert.deepEqual(choices, [
      { provider: 'anthropic', apiKey: 'sk-ant-secret', model: 'anthropic/claude-sonnet-4-5' },
    ]);
    assert.deepEqual([connects, server.closed()], [1, 0], 'the same server goes on: no restart');
    assert.match(
      ui.frame(),
      /Saved anthropic\/claude-sonnet-4-5 and its key to \/tmp\/santra-test\/config\.json/,
    );
    assert.match(ui.frame(), /Ask santra, or \/help/);
  });

  test('first run: a key typed fast with its Enter (one chunk) is the key, and the Enter moves on', async () => {
    const unconfigured = MODELS.map((model) => ({ ...model, configured: false }));
    const choices: SetupChoice[] = [];
    const ui = await start(scripted({ models: unconfigured, initial: '', ...savesSetup(choices) }));
    await ui.type('\r');
    assert.match(ui.frame(), /API key for anthropic/);
    await ui.type('sk-ant-fast\r');
    assert.match(ui.frame(), /Model \(anthropic\)/);
    await ui.type('\r');
    await ui.settled();
    assert.deepEqual(choices, [
      { provider: 'anthropic', apiKey: 'sk-ant-fast', model: 'anthropic/claude-sonnet-4-5' },
    ]);
  });

  test('the model picker filters as you type: every word must match; Backspace and Esc undo it', async () => {
    const ui = await start(scripted({ models: [...MODELS, ...manyModels(3)] }));
    await ui.type('/model');
    await ui.type('\r');
    await ui.settled();
    assert.match(ui.frame(), /claude-sonnet-4-5/);
    // The picker, without the ChromeBar (which names the current model).
    const picker = () => ui.frame().split('\nproject · ')[0] ?? '';
    await ui.type('gpt');
    let frame = picker();
    assert.match(frame, /filter: gpt/);
    assert.match(frame, /› gpt-5 /);
    assert.doesNotMatch(frame, /claude-sonnet|model-1/);
    assert.match(frame, /1 of 1 \(of 5\)/);
    await ui.type('\u007f\u007f\u007f'); // Backspace three times: the whole list again
    assert.match(ui.frame(), /model-1/);
    await ui.type('model 3');
    frame = picker();
    assert.match(frame, /› model-3 /);
    assert.doesNotMatch(frame, /model-1|model-2/);
    await ui.type('x');
    assert.match(ui.frame(), /nothing matches "model 3x"/);
    await ui.type(ESC); // clears the filter; the picker stays
    await ui.until(() => !ui.frame().includes('nothing matches'), 'the filter to be cleared');
    assert.match(ui.frame(), /Choose the model/);
    assert.doesNotMatch(ui.frame(), /filter:/);
    await ui.type('model 2\r'); // typed fast: the letters and their Enter in one chunk
    assert.match(ui.frame(), /Model: anthropic\/model-2/);
  });

  test('Ctrl+O prints the last tool output whole; pressed again, the one before; an allowed diff with its output', async () => {
    const ui = await start();
    await ui.type('fix it');
    await ui.type('\r');
    ui.server.phase({
      type: 'tool_call',
      toolCallId: 'c1',
      toolName: 'run_command',
      args: {},
      summary: 'npm test',
    });
    ui.server.phase({
      type: 'tool_result',
      toolCallId: 'c1',
      toolName: 'run_command',
      status: 'error',
      summary: 'exit 1',
      output: 'FIRST OUTPUT\n1 failing',
    });
    ui.server.phase({
      type: 'tool_call',
      toolCallId: 'c2',
      toolName: 'str_replace',
      args: {},
      summary: 'str_replace src/a.ts',
    });
    await ui.settled();
    const answer = ui.server.approve({
      kind: 'file_change',
      agentId: 'orchestrator',
      toolCallId: 'c2',
      toolName: 'str_replace',
      path: 'src/a.ts',
      operation: 'modify',
      diff: {
        added: 1,
        removed: 1,
        replacement: false,
        hunks: [],
        unifiedDiff: '--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1 +1 @@\n-const a = 1;\n+const a = 2;',
      },
    });
    await ui.settled();
    await ui.type('y');
    assert.deepEqual(await answer, { decision: 'allow' });
    ui.server.phase({
      type: 'tool_result',
      toolCallId: 'c2',
      toolName: 'str_replace',
      status: 'ok',
      summary: 'replaced line 1',
      output: 'SECOND OUTPUT: the edited part now reads …',
    });
    await ui.settled();
    await ui.type('\u000f'); // Ctrl+O
    let frame = ui.frame();
    assert.match(frame, /str_replace src\/a\.ts: the change as applied/);
    assert.match(frame, /\+const a = 2;/);
    assert.match(frame, /str_replace src\/a\.ts \(output 2 of 2; Ctrl\+O again: the one before\)/);
    assert.match(frame, /SECOND OUTPUT/);
    assert.doesNotMatch(frame, /FIRST OUTPUT/);
    await ui.type('\u000f');
    frame = ui.frame();
    assert.match(frame, /npm test \(output 1 of 2\)/);
    assert.match(frame, /FIRST OUTPUT +│\n│ 1 failing/);
    await ui.type('\u000f');
    assert.match(ui.frame(), /That was the oldest output kept \(2\)/);
  });

  test('the feedback typed when rejecting is shown with the tool row', async () => {
    const ui = await start();
    await ui.type('fix it');
    await ui.type('\r');
    ui.server.phase({
      type: 'tool_call',
      toolCallId: 'c1',
      toolName: 'run_command',
      args: {},
      summary: 'rm -rf build',
    });
    await ui.settled();
    const answer = ui.server.approve({
      kind: 'command',
      agentId: 'orchestrator',
      toolCallId: 'c1',
      toolName: 'run_command',
      command: 'rm -rf build',
      cwd: '/home/ada/project',
    });
    await ui.settled();
    await ui.type('f');
    await ui.type('keep the build, run make clean');
    await ui.type('\r');
    assert.deepEqual(await answer, { decision: 'feedback', feedback: 'keep the build, run make clean' });
    ui.server.phase({
      type: 'tool_result',
      toolCallId: 'c1',
      toolName: 'run_command',
      status: 'rejected',
      summary: 'rejected by the user',
      output: 'The user rejected this (running rm -rf build) with feedback: keep the build, run make clean',
    });
    ui.server.end();
    await ui.settled();
    assert.match(
      ui.frame(),
      /⊘ rm -rf build — rejected by the user\n {2}↳ your feedback: keep the build, run make clean/,
    );
  });

  test("the router's reason is said once, under the prompt, not on the spinner for the whole run", async () => {
    const ui = await start();
    await ui.type('where is the parser?');
    await ui.type('\r');
    ui.server.phase({ type: 'status', text: 'Route: agent_task (may refer to your project ("the parser"))' });
    // What memory kept from the last run: printed too, not left to the spinner's next status.
    ui.server.phase({
      type: 'status',
      text: 'Memory: remembered in /w/.santra/memory.md: "The project builds with pnpm"',
    });
    ui.server.phase({
      type: 'tool_call',
      toolCallId: 'c1',
      toolName: 'grep_search',
      args: {},
      summary: 'grep parser',
    });
    await ui.settled();
    const frame = ui.frame();
    assert.equal(frame.match(/Route: agent_task/g)?.length, 1);
    assert.match(frame, /› where is the parser\?\nRoute: agent_task/);
    assert.match(frame, /^Memory: remembered in \/w\/\.santra\/memory\.md: "The project builds with pnpm"$/m);
    assert.match(frame, /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] Working…/);
  });

  test('/help lists every key binding, place by place, from keybindings.ts', async () => {
    const ui = await start();
    ui.controller.submit('/help');
    await ui.settled();
    const help = ui.controller
      .getState()
      .printed.items.map((entry) => ('text' in entry ? entry.text : ''))
      .join('\n');
    for (const { where, names } of HELP) {
      assert.match(help, new RegExp(`^${where.replace(/[()]/g, '\\$&')}:$`, 'm'));
      for (const name of names)
        assert.ok(help.includes(`  ${KEYS[name].keys}  `) || help.includes(`  ${KEYS[name].keys} `), name);
    }
  });

  test('first run: a setup the server refuses shows its reason, not the method that was refused', async () => {
    const unconfigured = MODELS.map((model) => ({ ...model, configured: false }));
    const ui = await start(
      scripted({
        models: unconfigured,
        initial: '',
        methods: ['config/setup'],
        answers: {
          'config/setup': () => {
            throw new PrintError(
              'santra: santra-server refused config/setup: Anthropic: the API key was rejected (401).',
            );
          },
        },
      }),
    );
    await ui.type('\r');
    await ui.type('sk-ant-wrong\r');
    await ui.type('\r');
    await ui.settled();
    assert.match(ui.frame(), /^Anthropic: the API key was rejected \(401\)\.$/m);
    assert.doesNotMatch(ui.frame(), /refused|config\/setup/);
  });
});

/** A server that has config/setup and saves each choice into `choices`, as the real one writes its file. */
function savesSetup(choices: SetupChoice[]) {
  return {
    methods: ['config/setup'],
    answers: {
      'config/setup': (params: unknown) => {
        const {
          provider,
          apiKey = '',
          model,
        } = params as { provider: string; apiKey?: string; model: string };
        choices.push({ provider, apiKey, model });
        return { file: '/tmp/santra-test/config.json', model };
      },
    },
  };
}

/** `count` Anthropic models, model-1 first, the first of them current. */
function manyModels(count: number): ModelEntry[] {
  return Array.from({ length: count }, (_, index) => ({
    ref: `anthropic/model-${index + 1}`,
    provider: 'anthropic',
    id: `model-${index + 1}`,
    contextWindow: 200000,
    configured: true,
  }));
}
