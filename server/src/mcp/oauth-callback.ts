/**
 * The loopback redirect of an OAuth sign-in (RFC 8252 §7.3): a one-shot HTTP server on
 * `http://127.0.0.1:<port>/callback` that the person's browser is sent back to with the
 * authorization code. It answers only a request whose `state` is the one Santra put in the
 * authorization URL (anything else could be another page trying to sign the person in to an
 * account of its choosing), hands the code over, and closes once a code was taken.
 *
 * Bound to 127.0.0.1 only: nothing off this machine can reach it.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorMessage } from '../support/errno.ts';

export const CALLBACK_PATH = '/callback';

export interface CallbackOptions {
  port: number;
  /** The `state` of the authorization URL now shown; a callback with any other is refused. */
  expectedState: () => string | undefined;
  /** Exchanges the code; what it throws is shown in the browser (and the listener stays up for another try). */
  onCode: (code: string) => Promise<void>;
  /** The authorization server refused (`?error=`): shown in the browser and reported. */
  onRefused: (error: string) => void;
  /** The server's name, for the page the browser shows. */
  server: string;
}

export interface CallbackListener {
  port: number;
  close(): Promise<void>;
}

/**
 * A port on 127.0.0.1 that is free right now (bound, read, released): `port` when it is free, else
 * any (0: any). For a redirect URL made before its listener.
 */
export async function freeLoopbackPort(port = 0): Promise<number | undefined> {
  const probe = createServer();
  const bound = await new Promise<boolean>((resolve) => {
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => resolve(true));
  });
  if (!bound) return undefined;
  const found = (probe.address() as AddressInfo).port;
  await new Promise((resolve) => probe.close(resolve));
  return found;
}

/** Listens on the port; rejects with what to do when the port is taken. */
export async function listenForCallback(options: CallbackOptions): Promise<CallbackListener> {
  let done = false;
  const server: Server = createServer((req, res) => {
    void answer(req, res).catch((error: unknown) => page(res, 500, `Santra failed: ${errorMessage(error)}`));
  });
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method !== 'GET' || url.pathname !== CALLBACK_PATH) return page(res, 404, 'Not found.');
    const state = url.searchParams.get('state');
    const expected = options.expectedState();
    if (done || expected === undefined || state !== expected)
      return page(
        res,
        400,
        'This sign-in link is not the one Santra is waiting for (it is old, or was used already). Start the sign-in again from Santra.',
      );
    const refused = url.searchParams.get('error');
    if (refused !== null) {
      const description = url.searchParams.get('error_description');
      const why = `${refused}${description === null ? '' : `: ${description}`}`;
      options.onRefused(why);
      return page(res, 400, `The sign-in to ${options.server} was refused (${why}).`);
    }
    const code = url.searchParams.get('code');
    if (code === null || code === '') return page(res, 400, 'The redirect carries no authorization code.');
    done = true;
    try {
      await options.onCode(code);
    } catch (error) {
      done = false;
      return page(res, 502, `The sign-in to ${options.server} failed: ${errorMessage(error)}`);
    }
    page(res, 200, `Signed in to ${options.server}. You can close this tab and go back to Santra.`);
    res.on('finish', () => void close());
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) =>
      reject(
        new Error(
          `cannot listen for the sign-in's redirect on 127.0.0.1:${options.port} (${errorMessage(error)}): another program uses the port; set "oauth": {"callbackPort": …} to a free one in the server's definition`,
          { cause: error },
        ),
      ),
    );
    server.listen(options.port, '127.0.0.1', resolve);
  });
  server.unref();
  return { port: (server.address() as AddressInfo).port, close };
}

function page(res: ServerResponse, status: number, text: string): void {
  if (res.headersSent) return;
  const escaped = text.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  res
    .writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
    .end(`<!doctype html><meta charset="utf-8"><title>Santra</title><p>${escaped}</p>\n`);
}
