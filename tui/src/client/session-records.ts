/**
 * A recording read as the published record format (protocol-spec, §10.9), by both of this
 * client's readers: the replay viewer (`santra replay FILE`) and the re-execution
 * (`santra -p --replay FILE`). Neither depends on the server's code.
 *
 * A recording is a session file (`<SANTRA_HOME>/sessions/…/ses_*.jsonl`, one record a line), or
 * what `session/export` with format json gives (the array of records, or the whole result with
 * the array as its `content`). A damaged line (a torn write, NUL bytes) and a record this client
 * cannot read are counted in `skipped`; a record of a type it does not know (a newer server's) is
 * passed over without counting, as §10.9 says a reader does.
 */
import { SESSION_RECORD_FORMAT, SessionRecord } from '#protocol';

export interface SessionRecords {
  records: SessionRecord[];
  /** Damaged lines and records that do not match their type's schema. */
  skipped: number;
}

/** A recording in a later record format than this client reads: §10.9 says to refuse it. */
export class NewerRecordFormat extends Error {
  readonly format: number;

  constructor(format: number) {
    super(
      `it is written in session record format ${format}, and this santra reads format ${SESSION_RECORD_FORMAT}; update santra to read it`,
    );
    this.format = format;
  }
}

/** The records of a recording's text, in order. Throws NewerRecordFormat for a later format. */
export function readSessionRecords(text: string): SessionRecords {
  const result: SessionRecords = { records: [], skipped: 0 };
  for (const raw of rawRecords(text)) {
    const parsed = SessionRecord.safeParse(raw);
    if (parsed.success) {
      if (parsed.data.type === 'session' && parsed.data.format > SESSION_RECORD_FORMAT)
        throw new NewerRecordFormat(parsed.data.format);
      result.records.push(parsed.data);
    } else if (!isNewerRecordType(raw)) result.skipped++;
  }
  return result;
}

/** The JSON values of a recording; undefined entries are damaged lines. */
function rawRecords(text: string): unknown[] {
  const trimmed = text.trimStart();
  if (trimmed.startsWith('[') || trimmed.startsWith('{')) {
    try {
      const whole: unknown = JSON.parse(text);
      if (Array.isArray(whole)) return whole;
      const content = (whole as { content?: unknown } | null)?.content;
      if (typeof content === 'string') return rawRecords(content);
      if (Array.isArray(content)) return content;
      // One JSON object alone: a session file of one line.
      return [whole];
    } catch {
      // Not one JSON document: JSON Lines.
    }
  }
  const values: unknown[] = [];
  for (const line of text.split('\n')) {
    // A torn write can leave NUL bytes between records on one line.
    for (const piece of line.split(/\0+/)) {
      if (piece.trim() === '') continue;
      try {
        values.push(JSON.parse(piece));
      } catch {
        values.push(undefined);
      }
    }
  }
  return values;
}

const KNOWN_TYPES: ReadonlySet<string> = new Set(
  SessionRecord.options.map((option) => option.shape.type.value),
);

/** A record of a type this client does not know: a newer server's, passed over (§10.9). */
function isNewerRecordType(raw: unknown): boolean {
  const type = (raw as { type?: unknown } | null)?.type;
  return typeof type === 'string' && !KNOWN_TYPES.has(type);
}
