/**
 * A TCP relay on 127.0.0.1 in front of a fake provider. The fake knows when it answered, not when
 * the server under test hung up; the relay sees every connection the server opens and when it
 * closes, which is how the suite checks that cancelling a run aborts the model's HTTP stream
 * (SANTRA-CANCEL-004) without knowing anything of the server's HTTP client.
 */
import { type AddressInfo, createConnection, createServer, type Server, type Socket } from 'node:net';

export class Relay {
  /** Connections from the server under test that are still open. */
  readonly open = new Set<Socket>();
  readonly #server: Server;
  readonly #target: URL;
  #port = 0;

  private constructor(target: URL) {
    this.#target = target;
    this.#server = createServer((client) => this.#relay(client));
  }

  /** A relay to `targetUrl`, listening on a free port. */
  static async start(targetUrl: string): Promise<Relay> {
    const relay = new Relay(new URL(targetUrl));
    await new Promise<void>((resolve) => relay.#server.listen(0, '127.0.0.1', resolve));
    relay.#port = (relay.#server.address() as AddressInfo).port;
    return relay;
  }

  /** The target's URL with the relay's port: what the server under test is given. */
  get url(): string {
    const url = new URL(this.#target.href);
    url.port = String(this.#port);
    return url.href.replace(/\/$/, '');
  }

  /** The connections open now. */
  snapshot(): Set<Socket> {
    return new Set(this.open);
  }

  /** Resolves true once none of `connections` (default: every open one) is open, false after `timeoutMs`. */
  async allClosed(timeoutMs: number, connections: Set<Socket> = this.open): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while ([...connections].some((socket) => this.open.has(socket))) {
      if (Date.now() > deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return true;
  }

  async close(): Promise<void> {
    for (const socket of this.open) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #relay(client: Socket): void {
    this.open.add(client);
    const upstream = createConnection({ host: this.#target.hostname, port: Number(this.#target.port) });
    const end = () => {
      this.open.delete(client);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
    client.pipe(upstream);
    upstream.pipe(client);
  }
}
