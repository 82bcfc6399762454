/**
 * `session/import`: another agent's transcript (Claude Code, Codex, pi) becomes a session of this
 * workspace (sessions/import/). The transcript comes as its text, which any client can send, or
 * as a path on this machine, for one larger than a message may be (`santra import` sends paths:
 * it runs its server beside it).
 */
import { readFile, stat } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { importTranscript } from '../sessions/import/import-session.ts';
import type { SessionStore } from '../sessions/store.ts';
import { describeFsError, errorCode } from '../support/errno.ts';
import { ProtocolFault } from '../support/protocol-fault.ts';
import type { RequestHandlers } from './contract.ts';

/** The largest transcript read from a path: far beyond any conversation a model can be sent. */
export const MAX_TRANSCRIPT_BYTES = 256 * 1024 * 1024;

export function importHandler(
  ready: () => { sessions: SessionStore },
): Required<Pick<RequestHandlers, 'session/import'>> {
  return {
    async 'session/import'(params) {
      const { sessions } = ready();
      if ((params.content === undefined) === (params.path === undefined))
        throw invalid(
          'params',
          'give the transcript either as `content` (its text) or as `path` (a file on the server’s machine), not both or neither',
        );
      const content = params.content ?? (await readTranscript(params.path as string));
      const name = params.name ?? params.path ?? 'the transcript';
      const result = await importTranscript(sessions, { format: params.format, content, name });
      return {
        session: sessions.info(result.session),
        outcome: result.outcome,
        ...(result.reason === undefined ? {} : { reason: result.reason }),
        counts: result.counts,
        warnings: result.warnings,
      };
    },
  };
}

async function readTranscript(path: string): Promise<string> {
  if (!isAbsolute(path)) throw invalid('params.path', `${path} is not an absolute path`);
  const problem = (error: unknown) => {
    const code = errorCode(error);
    return invalid('params.path', `${path}: ${code === 'ENOENT' ? 'no such file' : describeFsError(code)}`);
  };
  // Looked at before it is opened: opening a FIFO would wait for a writer.
  const info = await stat(path).catch((error: unknown) => {
    throw problem(error);
  });
  if (!info.isFile()) throw invalid('params.path', `${path} is not a file`);
  if (info.size > MAX_TRANSCRIPT_BYTES)
    throw invalid(
      'params.path',
      `${path} has ${info.size} bytes, more than this server imports (${MAX_TRANSCRIPT_BYTES})`,
    );
  return readFile(path, 'utf8').catch((error: unknown) => {
    throw problem(error);
  });
}

function invalid(path: string, message: string): ProtocolFault {
  return new ProtocolFault('InvalidParams', `Invalid params for session/import: ${path}: ${message}.`, {
    issues: [{ path, message }],
  });
}
