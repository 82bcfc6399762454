/**
 * Real shared stores for the session tests: a redis-server and a PostgreSQL cluster from Debian's
 * packages (redis-server, postgresql: .ci/run installs them), each started on a free port of
 * 127.0.0.1 in a temp directory, with nothing kept outside it, and stopped by `stop()`.
 * PostgreSQL refuses to run as root: as root, it runs as the `postgres` user (setpriv, which
 * execs it directly, so signals reach it).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chownSync, existsSync, readdirSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { join } from 'node:path';
import { createClient } from '@keyv/redis';
import pg from 'pg';
import { removeTempDir, tempDir } from '../../../scripts/temp-dirs.ts';

export interface RunningStore {
  kind: 'redis' | 'postgres';
  /** A URL of an empty database of its own (a Redis database number, a PostgreSQL database). */
  newDatabase(): Promise<string>;
  /** Every key and value in the database `url` names. */
  entries(url: string): Promise<Array<[string, string]>>;
  /** Stops the server, keeping its data; `start()` brings it back on the same port. */
  pause(): Promise<void>;
  start(): Promise<void>;
  /** Stops it and removes its directory. */
  stop(): Promise<void>;
}

/** Why a store cannot be started here (its program is missing), or undefined. */
export function missing(kind: 'redis' | 'postgres'): string | undefined {
  if (kind === 'redis')
    return onPath('redis-server')
      ? undefined
      : 'redis-server is not installed (apt-get install redis-server)';
  return postgresBin() === undefined
    ? 'PostgreSQL is not installed (apt-get install postgresql: /usr/lib/postgresql/*/bin)'
    : undefined;
}

function onPath(program: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${program}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function postgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((name) => existsSync(join(root, name, 'bin', 'postgres')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : join(root, versions[0], 'bin');
}

/** A port of 127.0.0.1 nothing listens on (it was free a moment ago). */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** Resolves once `check` succeeds, polling; rejects after `ms` with what the process said. */
async function until(check: () => Promise<boolean>, ms: number, output: () => string): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the store did not start within ${ms} ms:\n${output()}`);
}

async function end(child: ChildProcess | undefined, signal: NodeJS.Signals): Promise<void> {
  if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

function capture(child: ChildProcess): () => string {
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return () => output;
}

export async function startRedis(): Promise<RunningStore> {
  const dir = tempDir('santra-redis-');
  const port = await freePort();
  let child: ChildProcess | undefined;
  let databases = 0;
  const ping = () =>
    new Promise<boolean>((resolve) => {
      const socket = createConnection({ host: '127.0.0.1', port }, () => socket.write('PING\r\n'));
      socket.on('data', (data) => {
        resolve(data.toString().startsWith('+PONG'));
        socket.destroy();
      });
      socket.on('error', () => resolve(false));
    });
  const start = async () => {
    // An append-only file in the temp directory, so that a restart (pause/start) keeps the data.
    child = spawn(
      'redis-server',
      [
        ...['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', ''],
        ...['--appendonly', 'yes', '--appendfsync', 'always', '--databases', '64', '--loglevel', 'warning'],
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const output = capture(child);
    await until(ping, 10_000, output);
  };
  await start();
  return {
    kind: 'redis',
    newDatabase: () => Promise.resolve(`redis://127.0.0.1:${port}/${++databases}`),
    async entries(url) {
      const client = createClient({ url });
      await client.connect();
      try {
        const keys = await client.keys('*');
        return await Promise.all(
          keys.map(async (key): Promise<[string, string]> => [key, (await client.get(key)) ?? '']),
        );
      } finally {
        await client.close();
      }
    },
    pause: () => end(child, 'SIGTERM'),
    start,
    async stop() {
      await end(child, 'SIGTERM');
      await removeTempDir(dir);
    },
  };
}

export async function startPostgres(): Promise<RunningStore> {
  const bin = postgresBin();
  if (bin === undefined) throw new Error('PostgreSQL is not installed');
  const dir = tempDir('santra-postgres-');
  const port = await freePort();
  const root = process.getuid?.() === 0;
  // As root: the cluster belongs to `postgres`, which runs it.
  const asOwner = (program: string, args: string[]): [string, string[]] =>
    root
      ? [
          'setpriv',
          ['--reuid=postgres', '--regid=postgres', '--init-groups', '--', join(bin, program), ...args],
        ]
      : [join(bin, program), args];
  if (root) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
  }
  const data = join(dir, 'data');
  const [initdb, initArgs] = asOwner('initdb', [
    ...['-D', data, '-U', 'santra', '-A', 'trust', '-E', 'UTF8', '--no-locale', '--no-sync'],
  ]);
  execFileSync(initdb, initArgs, { stdio: 'pipe', cwd: dir });
  let child: ChildProcess | undefined;
  const admin = `postgres://santra@127.0.0.1:${port}/postgres`;
  const query = async <T>(url: string, sql: string): Promise<T[]> => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query(sql)).rows as T[];
    } finally {
      await client.end();
    }
  };
  const start = async () => {
    const [postgres, args] = asOwner('postgres', [
      ...['-D', data, '-k', dir, '-p', String(port), '-h', '127.0.0.1', '-F'],
    ]);
    child = spawn(postgres, args, { stdio: ['ignore', 'pipe', 'pipe'], cwd: dir });
    const output = capture(child);
    await until(async () => (await query(admin, 'SELECT 1')).length === 1, 30_000, output);
  };
  await start();
  let databases = 0;
  return {
    kind: 'postgres',
    async newDatabase() {
      const name = `sessions_${++databases}`;
      await query(admin, `CREATE DATABASE ${name}`);
      return `postgres://santra@127.0.0.1:${port}/${name}`;
    },
    async entries(url) {
      const rows = await query<{ key: string; value: string }>(
        url,
        'SELECT key, value FROM santra_sessions',
      ).catch((error: unknown) => {
        // No table yet: nothing was stored.
        if ((error as { code?: string }).code === '42P01') return [];
        throw error;
      });
      return rows.map((row) => [row.key, row.value]);
    },
    // SIGINT: a fast shutdown, which ends the connections (a smart one waits for them).
    pause: () => end(child, 'SIGINT'),
    start,
    async stop() {
      await end(child, 'SIGINT');
      await removeTempDir(dir);
    },
  };
}
