/**
 * Where the agents `santra import --all` reads from keep a project's transcripts, found the way
 * each agent finds them itself:
 *
 * - Claude Code: `<CLAUDE_CONFIG_DIR or ~/.claude>/projects/<project>/<session id>.jsonl`, the
 *   project's folder named after its path with every character but ASCII letters and digits
 *   replaced by "-" (older versions replaced only "/" and "."; both are looked for);
 * - Codex: `<CODEX_HOME or ~/.codex>/sessions/YYYY/MM/DD/rollout-*.jsonl`, by date, not by
 *   project: a rollout is this project's when its first line (`session_meta`) names a `cwd` in it;
 * - pi: `<PI_CODING_AGENT_DIR or ~/.pi/agent>/sessions/--<path, "/" as "-">--/*.jsonl`.
 */
import { closeSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { ImportFormat } from '#protocol';

export interface Found {
  /** The transcripts, oldest first (by name: each agent names them by time or id). */
  files: string[];
  /** Where they were looked for, to say so when there are none. */
  lookedIn: string;
}

export function findTranscripts(format: ImportFormat, projectRoot: string, env: NodeJS.ProcessEnv): Found {
  switch (format) {
    case 'claude':
      return claudeTranscripts(projectRoot, env);
    case 'codex':
      return codexRollouts(projectRoot, env);
    case 'pi':
      return piSessions(projectRoot, env);
    default: {
      const exhaustive: never = format;
      throw new Error(`unknown format ${String(exhaustive)}`);
    }
  }
}

const home = (env: NodeJS.ProcessEnv) => env.HOME ?? homedir();
const setting = (env: NodeJS.ProcessEnv, name: string) => {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
};

/** Claude Code's name for a project's folder under `projects/`. */
export function claudeProjectFolder(projectRoot: string): string {
  return projectRoot.replace(/[^A-Za-z0-9]/g, '-');
}

function claudeTranscripts(projectRoot: string, env: NodeJS.ProcessEnv): Found {
  const projects = join(setting(env, 'CLAUDE_CONFIG_DIR') ?? join(home(env), '.claude'), 'projects');
  const folders = [...new Set([claudeProjectFolder(projectRoot), projectRoot.replace(/[/.]/g, '-')])];
  const files = folders.flatMap((folder) => jsonlFiles(join(projects, folder)));
  return { files: files.sort(byName), lookedIn: join(projects, claudeProjectFolder(projectRoot)) };
}

function codexRollouts(projectRoot: string, env: NodeJS.ProcessEnv): Found {
  const sessions = join(setting(env, 'CODEX_HOME') ?? join(home(env), '.codex'), 'sessions');
  const files: string[] = [];
  const walk = (dir: string, depth: number) => {
    for (const entry of entries(dir)) {
      const path = join(dir, entry.name);
      if (entry.isDirectory() && depth < 3) walk(path, depth + 1);
      else if (
        entry.isFile() &&
        /^rollout-.*\.jsonl$/.test(entry.name) &&
        inProject(firstLineCwd(path), projectRoot)
      )
        files.push(path);
    }
  };
  walk(sessions, 0);
  return { files: files.sort(byName), lookedIn: sessions };
}

function piSessions(projectRoot: string, env: NodeJS.ProcessEnv): Found {
  const sessions = join(setting(env, 'PI_CODING_AGENT_DIR') ?? join(home(env), '.pi', 'agent'), 'sessions');
  const folder = join(sessions, `--${projectRoot.replace(/^[/\\]/, '').replace(/[/\\:]/g, '-')}--`);
  return { files: jsonlFiles(folder).sort(byName), lookedIn: folder };
}

function entries(dir: string) {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

function jsonlFiles(dir: string): string[] {
  return entries(dir)
    .filter((entry) => entry.isFile() && entry.name.endsWith('.jsonl'))
    .map((entry) => join(dir, entry.name));
}

function byName(a: string, b: string): number {
  const name = (path: string) => path.slice(path.lastIndexOf('/') + 1);
  return name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0;
}

function inProject(cwd: string | undefined, projectRoot: string): boolean {
  return cwd !== undefined && (cwd === projectRoot || cwd.startsWith(`${projectRoot}/`));
}

/** The most of a rollout's first line read: session_meta carries Codex's instructions. */
const FIRST_LINE_BYTES = 1024 * 1024;

/** The `cwd` of a rollout's session_meta line, or undefined. */
function firstLineCwd(path: string): string | undefined {
  let fd: number | undefined;
  try {
    if (statSync(path).size === 0) return undefined;
    fd = openSync(path, 'r');
    const buffer = Buffer.alloc(FIRST_LINE_BYTES);
    const read = readSync(fd, buffer, 0, buffer.length, 0);
    const text = buffer.subarray(0, read).toString('utf8');
    const end = text.indexOf('\n');
    const line = JSON.parse(end === -1 ? text : text.slice(0, end)) as {
      type?: unknown;
      payload?: { cwd?: unknown };
    };
    return line.type === 'session_meta' && typeof line.payload?.cwd === 'string'
      ? line.payload.cwd
      : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
