/**
 * What the editor tests (the Neovim plugin, `santra lsp`, `santra acp`) share: the environment a
 * Santra server runs in against a fake Anthropic provider, and the custom agent their prompts use,
 * so each test scripts one agent with the tools it needs and nothing else.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A server's environment: home, config and temp files under `home`; the model is the fake at `fakeUrl`. */
export function santraTestEnv(home: string, fakeUrl: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: home,
    TMPDIR: home,
    SANTRA_HOME: join(home, 'santra'),
    ANTHROPIC_API_KEY: 'sk-ant-fake-key',
    ANTHROPIC_BASE_URL: fakeUrl,
    SANTRA_MODEL: 'anthropic/claude-sonnet-4-5',
  };
}

/** The same for a headless Neovim that starts the server: its XDG directories under `home` too. */
export function nvimTestEnv(home: string, fakeUrl: string): NodeJS.ProcessEnv {
  return {
    ...santraTestEnv(home, fakeUrl),
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local/share'),
    XDG_STATE_HOME: join(home, '.local/state'),
    XDG_CACHE_HOME: join(home, '.cache'),
  };
}

/** Writes `.agents/tester.json`: an agent named "tester" with only `toolNames`. */
export function writeTesterAgent(workspace: string, toolNames: readonly string[], usedBy: string): void {
  mkdirSync(join(workspace, '.agents'), { recursive: true });
  const tester = {
    id: 'tester',
    name: 'Tester',
    description: `A writer used by the ${usedBy} test.`,
    systemPrompt: 'You are the test agent.',
    toolNames,
  };
  writeFileSync(join(workspace, '.agents/tester.json'), JSON.stringify(tester));
}
