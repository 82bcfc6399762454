/**
 * The UserInput of a real terminal, echoing to stderr (stdout carries the answer and may be
 * piped): a single key for a choice, readline for a line. stdin is taken only while a question is
 * on screen, so the terminal is back in cooked mode whenever santra is not asking.
 */
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import type { UserInput } from './approvals.ts';

const CTRL_C = '\u0003';
const CTRL_D = '\u0004';

/** A UserInput on `input` (a TTY), writing prompts and echo to `output`. */
export function terminalInput(input: NodeJS.ReadStream, output: NodeJS.WriteStream): UserInput {
  return {
    key: (prompt, choices, { signal }) =>
      new Promise((resolve) => {
        if (signal.aborted) {
          resolve(undefined);
          return;
        }
        let settled = false;
        const finish = (key: string | undefined) => {
          if (settled) return;
          settled = true;
          signal.removeEventListener('abort', onEnd);
          input.off('data', onData);
          input.off('end', onEnd);
          input.setRawMode(false);
          input.pause();
          output.write(key === undefined ? '\n' : `${key}\n`);
          resolve(key);
        };
        const onEnd = () => finish(undefined);
        const onData = (data: Buffer) => {
          for (const char of data.toString('utf8')) {
            // Raw mode turns Ctrl-C into a byte: hand it to santra's SIGINT handling, which
            // withdraws this question.
            if (char === CTRL_C) return void process.kill(process.pid, 'SIGINT');
            if (char === CTRL_D) return finish(undefined);
            const key = char.toLowerCase();
            // Any other key (Enter included) is not an answer: the question stays until one is given.
            if (choices.includes(key)) return finish(key);
          }
        };
        signal.addEventListener('abort', onEnd, { once: true });
        output.write(prompt);
        input.setRawMode(true);
        input.on('data', onData);
        input.once('end', onEnd);
        input.resume();
      }),

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
