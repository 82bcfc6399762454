/**
 * The built santra in a real terminal: a tmux server of the test's own (its own socket, no user
 * configuration), sessions started in it, and waits on what their panes print. For the TUI's
 * end-to-end tests; tmux is part of the test environment (.ci/run installs it).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, watch, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const SANTRA = fileURLToPath(new URL('../../../dist/santra.js', import.meta.url));
export const hasTmux = spawnSync('tmux', ['-V']).status === 0;
export const quote = (value: string) => `'${value.replaceAll("'", "'\\''")}'`;

/** A tmux server named after the test file; `kill()` ends it and every session in it. */
export function tmuxServer(name: string) {
  const socket = `${name}-${process.pid}`;
  const tmux = (...args: string[]) =>
    execFileSync('tmux', ['-L', socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
  /**
   * Starts the built santra in a new tmux session of this server, in `workspace` with `vars`, its
   * output also appended to `log`; what a test drives it with.
   */
  const startUi = (session: string, workspace: string, vars: Record<string, string>, log: string) => {
    const command = [
      'env',
      ...Object.entries({ ...vars, TERM: 'xterm-256color' }).map(([k, v]) => `${k}=${quote(v)}`),
      quote(process.execPath),
      quote(SANTRA),
    ].join(' ');
    tmux(
      'new-session',
      '-d',
      '-s',
      session,
      '-x',
      '140',
      '-y',
      '45',
      '-c',
      workspace,
      `${command}; echo $? > ${quote(`${log}.code`)}`,
    );
    writeFileSync(log, '');
    tmux('pipe-pane', '-t', session, `cat >> ${quote(log)}`);
    const pane = () => tmux('capture-pane', '-p', '-t', session, '-S', '-300');
    return {
      pane,
      type: (...keys: string[]) => tmux('send-keys', '-t', session, ...keys),
      /** Sends a line as typed text, then Enter. */
      line: (text: string) => {
        tmux('send-keys', '-t', session, '-l', text);
        tmux('send-keys', '-t', session, 'Enter');
      },
      waitFor: (pattern: RegExp) =>
        onPaneOutput(
          log,
          () => pattern.test(pane()),
          () => `waited for ${pattern}; pane:\n${pane()}`,
        ),
      exited: () =>
        onPaneOutput(
          log,
          () => existsSync(`${log}.code`) && readFileSync(`${log}.code`, 'utf8').endsWith('\n'),
          () => `santra did not exit; pane:\n${pane()}`,
        ),
    };
  };
  return {
    tmux,
    startUi,
    kill: () => {
      if (hasTmux) spawnSync('tmux', ['-L', socket, 'kill-server']);
    },
  };
}

/**
 * Waits until `done()` holds, looking at once, each time `log` (a pane's output) changes and every
 * 100 ms (tmux may write to the pipe before its screen holds the text, and what a test waits for
 * may happen off the screen); fails after `timeoutMs`.
 */
export function onPaneOutput(
  log: string,
  done: () => boolean,
  describe: () => string,
  timeoutMs = 20_000,
): Promise<void> {
  return new Promise((resolve, reject) => {
    let over = false;
    const watcher = watch(log);
    const end = (error?: Error) => {
      if (over) return;
      over = true;
      clearTimeout(deadline);
      clearInterval(again);
      watcher.close();
      if (error === undefined) resolve();
      else reject(error);
    };
    const look = () => {
      if (!over && done()) end();
    };
    const deadline = setTimeout(
      () => end(new Error(`timed out after ${timeoutMs} ms; ${describe()}`)),
      timeoutMs,
    );
    const again = setInterval(look, 100);
    watcher.on('change', look).on('error', (error) => end(error));
    look();
  });
}
