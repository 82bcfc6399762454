/**
 * session/import: another agent's transcript becomes a session of this workspace.
 *
 * The transcript is read and converted whole before anything is written (a damaged line refuses
 * it, naming the line). Then the ledger (archive.ts) decides:
 *
 * - a transcript never imported here (or whose session was deleted): a new session;
 * - the same text as last time: that session, `unchanged`; nothing is written;
 * - the text grew (the agent went on with it) and the session has not been continued here since:
 *   the new turns are appended to that session, `appended` (a grown transcript that adds no turn
 *   only updates the ledger and the original);
 * - otherwise — the session was continued here, or the transcript changed other than by growing,
 *   or its last imported turn went on — a new session, with the reason: appending would mix two
 *   conversations that went different ways.
 *
 * Imports are done one at a time per store, so importing twice at once still gives one session.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { ImportFormat } from '#protocol';
import { ProtocolFault } from '../../support/protocol-fault.ts';
import type { Session, SessionStore } from '../store.ts';
import { foldSession } from '../summary.ts';
import type { LedgerEntry } from './archive.ts';
import { LEDGER_FORMAT } from './archive.ts';
import { readClaude } from './claude.ts';
import { readCodex } from './codex.ts';
import { type Conversion, convert, type ImportCounts } from './conversation.ts';
import { readPi } from './pi.ts';
import { type Transcript, TranscriptError } from './transcript.ts';
import { countRuns, headerRecord, runHash, runRecords } from './write-records.ts';

const READERS: Readonly<Record<ImportFormat, (content: string, name: string) => Transcript>> = {
  claude: readClaude,
  codex: readCodex,
  pi: readPi,
};

export interface ImportRequest {
  format: ImportFormat;
  /** The transcript's text. */
  content: string;
  /** What messages call it (its file name). */
  name: string;
}

export interface ImportResult {
  session: Session;
  outcome: 'created' | 'appended' | 'unchanged';
  reason?: string;
  counts: ImportCounts & { skippedLines: number };
  warnings: string[];
}

const NOTHING: ImportCounts & { skippedLines: number } = {
  runs: 0,
  messages: 0,
  toolCalls: 0,
  mappedToolCalls: 0,
  textToolCalls: 0,
  skippedLines: 0,
};

/** One import at a time per store: the ledger is read, then written. */
const queues = new WeakMap<SessionStore, Promise<unknown>>();

/**
 * Imports a transcript into `sessions`' workspace. Rejects with InvalidParams (the message names
 * the file and line) for a transcript that cannot be read, and with the store's faults.
 */
export function importTranscript(
  sessions: SessionStore,
  request: ImportRequest,
  now: () => Date = () => new Date(),
): Promise<ImportResult> {
  // Read and converted before waiting for another import: a bad transcript is refused at once.
  let transcript: Transcript;
  let conversion: Conversion;
  try {
    transcript = READERS[request.format](request.content, request.name);
    conversion = convert(transcript, request.name);
  } catch (error) {
    if (!(error instanceof TranscriptError)) throw error;
    throw new ProtocolFault('InvalidParams', `Invalid params for session/import: ${error.message}`, {
      issues: [{ path: 'params.content', message: error.message }],
      ...(error.line === undefined ? {} : { line: error.line }),
    });
  }
  const previous = queues.get(sessions) ?? Promise.resolve();
  const done = previous
    .catch(() => {})
    .then(() => save(sessions, request, transcript, conversion, now().toISOString()));
  queues.set(sessions, done);
  return done;
}

async function save(
  sessions: SessionStore,
  request: ImportRequest,
  transcript: Transcript,
  conversion: Conversion,
  now: string,
): Promise<ImportResult> {
  const archive = sessions.storage.imports;
  const bytes = Buffer.from(request.content, 'utf8');
  const contentHash = sha256(bytes);
  const key = `${request.format}:${transcript.id ?? `sha256-${sha256(Buffer.from(firstLine(request.content)))}`}`;
  const runHashes = conversion.runs.map(runHash);
  const warnings = [...transcript.warnings, ...conversion.warnings.map((w) => `${request.name}: ${w}`)];
  const root = sessions.workspaceRoot;
  if (transcript.cwd !== undefined && transcript.cwd !== root && !transcript.cwd.startsWith(`${root}/`))
    warnings.push(
      `${request.name} was recorded in ${transcript.cwd}, not in this workspace (${root}): its paths inside ${transcript.cwd} now name files here`,
    );
  const known = archive === undefined ? undefined : await archive.find(key);
  const before = known === undefined ? undefined : await storedState(sessions, known.sessionId);
  let reason: string | undefined;
  if (known !== undefined && before !== undefined) {
    const { state } = before;
    if (known.contentHash === contentHash) {
      const { session } = await sessions.open(known.sessionId, { otherWorkspace: true });
      return { session, outcome: 'unchanged', counts: NOTHING, warnings };
    }
    const grew = bytes.length > known.bytes && sha256(bytes.subarray(0, known.bytes)) === known.contentHash;
    const continued = state.lastSeq !== known.lastSeq || state.messages.length !== known.messageCount;
    const same = known.runHashes.every((hash, index) => runHashes[index] === hash);
    if (grew && !continued && same) {
      const added = conversion.runs.slice(known.runHashes.length);
      const records = runRecords(added, {
        sessionId: known.sessionId,
        from: request.format,
        runsBefore: known.runHashes.length,
        lastSeq: state.lastSeq,
        now,
      });
      await archive?.keepOriginal(known.sessionId, bytes.subarray(known.bytes).toString('utf8'), true);
      const session = await sessions.saveAll(known.sessionId, records);
      await archive?.record(
        entry(known.sessionId, session, { key, from: request.format, contentHash, bytes, runHashes, now }),
      );
      return {
        session,
        outcome: added.length === 0 ? 'unchanged' : 'appended',
        counts: { ...countRuns(added), skippedLines: 0 },
        warnings,
      };
    }
    reason = continued
      ? `${request.name} was imported before as ${known.sessionId}, which has been continued here since: its new turns would not follow on from it, so it is imported again as a new session.`
      : grew
        ? `${request.name} was imported before as ${known.sessionId} while its last turn was still going on: it is imported again, whole, as a new session.`
        : `${request.name} was imported before as ${known.sessionId} and has changed since other than by growing (a turn rewritten, another branch): it is imported again as a new session.`;
  }
  const sessionId = `ses_${randomUUID()}`;
  const records = [
    headerRecord(sessionId, sessions.workspaceRoot, transcript.startedAt ?? conversion.runs[0]?.at ?? now),
    ...runRecords(conversion.runs, { sessionId, from: request.format, runsBefore: 0, lastSeq: 0, now }),
  ];
  await archive?.keepOriginal(sessionId, request.content, false);
  const session = await sessions.saveAll(sessionId, records);
  await archive?.record(
    entry(sessionId, session, { key, from: request.format, contentHash, bytes, runHashes, now }),
  );
  if (archive === undefined)
    warnings.push(
      'this session store keeps no import ledger: importing the transcript again makes another session',
    );
  return {
    session,
    outcome: 'created',
    ...(reason === undefined ? {} : { reason }),
    counts: { ...countRuns(conversion.runs), skippedLines: transcript.skippedLines },
    warnings,
  };
}

/** The session's saved state, or undefined when the store no longer has it (deleted since). */
async function storedState(
  sessions: SessionStore,
  sessionId: string,
): Promise<{ state: NonNullable<ReturnType<typeof foldSession>> } | undefined> {
  let records;
  try {
    records = await sessions.records(sessionId);
  } catch (error) {
    if (error instanceof ProtocolFault && error.errorName === 'UnknownSession') return undefined;
    throw error;
  }
  const state = foldSession(records);
  return state === undefined ? undefined : { state };
}

function entry(
  sessionId: string,
  session: Session,
  parts: {
    key: string;
    from: ImportFormat;
    contentHash: string;
    bytes: Buffer;
    runHashes: string[];
    now: string;
  },
): LedgerEntry {
  return {
    format: LEDGER_FORMAT,
    key: parts.key,
    from: parts.from,
    sessionId,
    contentHash: parts.contentHash,
    bytes: parts.bytes.length,
    runHashes: parts.runHashes,
    lastSeq: session.seq,
    messageCount: session.messages.length,
    at: parts.now,
  };
}

function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

function firstLine(content: string): string {
  return content.split('\n').find((line) => line.trim() !== '') ?? '';
}
