/**
 * MCP in the terminal UI, end to end in a real terminal (tmux): the built santra and its real
 * santra-server, a project's `.mcp.json` and a server of the user's config (both the stdio fixture
 * tui/test/fixtures/mcp-server.ts). The project's server is put to the person first (the trust
 * overlay), and once trusted `/mcp` lists both servers connected with their tools and prompts. No
 * model is called: the provider's URL is a closed port.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { removeTempDir, tempDir } from '../../scripts/temp-dirs.ts';
import { hasTmux, onPaneOutput, quote, SANTRA, tmuxServer } from './helpers/tmux-ui.ts';

const MCP_SERVER = fileURLToPath(new URL('./fixtures/mcp-server.ts', import.meta.url));
const { tmux, kill } = tmuxServer('santra-ui-mcp-test');
const dirs: string[] = [];

after(async () => {
  kill();
  for (const dir of dirs) await removeTempDir(dir);
});

function startUi(home: string, workspace: string) {
  const files = { code: join(home, 'exit-code'), pane: join(home, 'pane') };
  const command = [
    'env',
    `HOME=${quote(home)}`,
    `SANTRA_HOME=${quote(join(home, 'santra'))}`,
    'ANTHROPIC_API_KEY=sk-ant-fake-key',
    'SANTRA_MODEL=anthropic/claude-sonnet-4-5',
    // Nothing listens on port 9: no model is called by this test.
    'ANTHROPIC_BASE_URL=http://127.0.0.1:9',
    'TERM=xterm-256color',
    quote(process.execPath),
    quote(SANTRA),
  ].join(' ');
  tmux('new-session', '-d', '-s', 'keeper');
  tmux('set-option', '-g', 'remain-on-exit', 'on');
  tmux(
    'new-session',
    '-d',
    '-s',
    'ui',
    '-x',
    '140',
    '-y',
    '45',
    '-c',
    workspace,
    `${command}; echo $? > ${quote(files.code)}`,
  );
  writeFileSync(files.pane, '');
  tmux('pipe-pane', '-t', 'ui', `cat >> ${quote(files.pane)}`);
  const pane = () => tmux('capture-pane', '-p', '-t', 'ui', '-S', '-300');
  const count = (pattern: RegExp) =>
    pane().match(new RegExp(pattern.source, `${pattern.flags}g`))?.length ?? 0;
  return {
    pane,
    count,
    screen: () => tmux('capture-pane', '-p', '-t', 'ui'),
    type: (...keys: string[]) => tmux('send-keys', '-t', 'ui', ...keys),
    /** Waits until `pattern` is on the pane `times` times, looking each time the pane prints. */
    waitFor: (pattern: RegExp, times = 1) =>
      onPaneOutput(
        files.pane,
        () => count(pattern) >= times,
        () => `waited for ${times} × ${pattern}; pane:\n${pane()}`,
      ),
    /** Waits until `pattern` is no longer on the screen (scrollback left out), or `timeoutMs`. */
    gone: (pattern: RegExp, timeoutMs: number) =>
      onPaneOutput(
        files.pane,
        () => !pattern.test(tmux('capture-pane', '-p', '-t', 'ui')),
        () => `waited for ${pattern} to go`,
        timeoutMs,
      ),
    exited: () =>
      onPaneOutput(
        files.pane,
        () => existsSync(files.code) && readFileSync(files.code, 'utf8').endsWith('\n'),
        () => `santra did not exit; pane:\n${pane()}`,
      ),
  };
}

// tmux is part of the test environment (.ci/run installs it): without it these tests fail, not skip.
describe('MCP in the terminal UI', () => {
  test('tmux is installed (.ci/run installs it)', () => assert.ok(hasTmux, 'install tmux'));

  test("a project's server is trusted in the overlay; /mcp then lists it and yours, connected", async () => {
    const home = tempDir('santra-ui-mcp-home-');
    const workspace = tempDir('santra-ui-mcp-ws-');
    dirs.push(home, workspace);
    mkdirSync(join(home, 'santra'), { recursive: true, mode: 0o700 });
    const server = { command: process.execPath, args: [MCP_SERVER] };
    writeFileSync(join(home, 'santra', 'config.json'), JSON.stringify({ mcpServers: { glossary: server } }), {
      mode: 0o600,
    });
    writeFileSync(join(workspace, '.mcp.json'), JSON.stringify({ mcpServers: { tickets: server } }, null, 2));
    const ui = startUi(home, workspace);

    await ui.waitFor(/Trust · a project wants to run code on your machine/);
    assert.match(ui.pane(), /mcp-server\.ts/, 'the definition is shown');
    // The overlay ignores keys for a moment after it appears (so a key typed for something else
    // does not answer it): press y until the overlay is gone.
    for (let pressed = 1; /Trust · a project/.test(ui.screen()); pressed++) {
      assert.ok(pressed <= 20, `the trust overlay stayed after ${pressed} presses of y:\n${ui.pane()}`);
      ui.type('y');
      await ui.gone(/Trust · a project/, 1000).catch(() => {});
    }
    // The list is taken when asked: the trusted server may still be starting, so ask until it is up.
    for (let asked = 1; ; asked++) {
      ui.type('-l', '/mcp');
      ui.type('Enter');
      await ui.waitFor(/^glossary\s/m, asked);
      if (/^tickets\s+connected/m.test(ui.pane()) || asked === 20) break;
    }
    const pane = ui.pane();
    assert.match(pane, /^glossary\s+connected\s+stdio · your config · 2 tools, 1 prompt, 1 resource/m);
    assert.match(pane, /^tickets\s+connected\s+stdio · project \(.*\.mcp\.json\)/m);
    assert.match(pane, /mcp__tickets__lookup \(read-only\)/);
    assert.match(pane, /\/mcp__glossary__review \(prompt\)/);
    ui.type('-l', '/exit');
    ui.type('Enter');
    await ui.exited();
  });
});
