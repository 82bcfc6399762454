/**
 * A paced OpenAI-style streaming endpoint for measuring added delay. Each text delta is a unique
 * marker (`«17» `) and the wall clock of its write is recorded, so a client in the same process can
 * subtract it from the moment the marker reaches it, with no cross-process clock to trust. It
 * speaks just enough of the Chat Completions stream for the `openai` SDK: role chunk, content
 * deltas, a finish chunk, the usage chunk when asked for, `[DONE]`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { WARM_UP } from './fake-provider.ts';
import { wallClock } from './protocol-client.ts';

/** The text of the i-th delta (0-based). */
export const marker = (i: number): string => `«${i}» `;

/** Finds the markers in a piece of streamed text. */
export const MARKER_PATTERN = /«(\d+)»/g;

export interface MarkerProvider {
  /** The base URL to give the SDK (`…/v1`). */
  readonly url: string;
  /** Wall clock (see `wallClock`) of each marker's write in the latest paced answer, by index. */
  readonly writtenAt: number[];
  close(): Promise<void>;
}

interface ChatRequest {
  model?: string;
  stream_options?: { include_usage?: boolean };
  messages?: { role?: string; content?: unknown }[];
}

async function readJson(req: IncomingMessage): Promise<ChatRequest> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequest;
}

/** Starts the endpoint on 127.0.0.1: `tokens` markers at `tokensPerSecond`, scheduled, not slept per token. */
export async function startMarkerProvider(options: {
  tokens: number;
  tokensPerSecond: number;
}): Promise<MarkerProvider> {
  const writtenAt: number[] = [];
  const closing = new AbortController();

  async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readJson(req);
    const includeUsage = body.stream_options?.include_usage === true;
    const chunk = (delta: unknown, finishReason: string | null = null) =>
      `data: ${JSON.stringify({
        id: 'chatcmpl-bench',
        object: 'chat.completion.chunk',
        created: Math.floor(Date.now() / 1000),
        model: body.model ?? 'bench',
        choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
        ...(includeUsage ? { usage: null } : {}),
      })}\n\n`;
    res.socket?.setNoDelay(true);
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    res.write(chunk({ role: 'assistant', content: '' }));
    const last = body.messages?.at(-1);
    if (last?.role === 'user' && last.content === WARM_UP) {
      res.write(chunk({ content: 'ok' }));
    } else {
      writtenAt.length = 0;
      const interval = 1000 / options.tokensPerSecond;
      const start = performance.now();
      for (let i = 0; i < options.tokens; i++) {
        const wait = start + i * interval - performance.now();
        if (wait >= 1) await sleep(wait, undefined, { signal: closing.signal });
        if (res.destroyed) return;
        writtenAt[i] = wallClock();
        res.write(chunk({ content: marker(i) }));
      }
    }
    res.write(chunk({}, 'stop'));
    if (includeUsage) {
      const usage = {
        prompt_tokens: 10,
        completion_tokens: options.tokens,
        total_tokens: 10 + options.tokens,
      };
      res.write(`data: ${JSON.stringify({ id: 'chatcmpl-bench', choices: [], usage })}\n\n`);
    }
    res.end('data: [DONE]\n\n');
  }

  const server = createServer((req, res) => {
    answer(req, res).catch((error: unknown) => {
      if (!closing.signal.aborted) process.stderr.write(`marker provider: ${String(error)}\n`);
      res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    writtenAt,
    close: () =>
      new Promise<void>((resolve) => {
        closing.abort();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
