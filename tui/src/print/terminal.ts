/**
 * The LineReader of a real terminal: readline on stdin, echoing to stderr (stdout carries the
 * answer and may be piped). One readline interface per question, so that stdin is released (and
 * the terminal back in cooked mode) whenever santra is not asking.
 */
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import type { LineReader } from './approvals.ts';

/** A LineReader on `input` (a TTY), writing prompts and echo to `output`. */
export function terminalLineReader(input: NodeJS.ReadStream, output: NodeJS.WriteStream): LineReader {
  return {
    question: (prompt, { secret = false, signal }) =>
      new Promise((resolve) => {
        if (signal.aborted) {
          resolve(undefined);
          return;
        }
        // Echo goes through a stream we can mute, which is how a secret answer stays off the screen.
        let muted = false;
        const echo = new Writable({
          write(chunk: Buffer | string, _encoding, callback) {
            if (!muted) output.write(chunk);
            callback();
          },
        });
        Object.defineProperty(echo, 'columns', { get: () => output.columns });
        const rl = createInterface({ input, output: echo, terminal: true });
        let settled = false;
        const finish = (answer: string | undefined) => {
          if (settled) return;
          settled = true;
          signal.removeEventListener('abort', onAbort);
          rl.close();
          if (secret || answer === undefined) output.write('\n');
          resolve(answer);
        };
        const onAbort = () => finish(undefined);
        signal.addEventListener('abort', onAbort, { once: true });
        // readline owns Ctrl-C while the terminal is in raw mode; hand it to santra's SIGINT handling.
        rl.on('SIGINT', () => process.kill(process.pid, 'SIGINT'));
        rl.on('close', () => finish(undefined));
        rl.question(prompt, (answer) => finish(answer));
        muted = secret;
      }),
  };
}
