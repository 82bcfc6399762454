/**
 * Memory as the runtime uses it: the two files (memory-file.ts) shown and added to on request,
 * put into each prompt as a note after the cached prefix (note.ts), and, when the user turned it
 * on, added to after runs by the background extraction (extract.ts). What an extraction added is
 * said at the start of the session's next run, since its own run has already ended.
 */
import type { ChatMessage } from '../providers/messages.ts';
import type { StreamFn } from '../providers/stream.ts';
import type { ModelSpec, ProviderEndpoint } from '../providers/types.ts';
import type { Usage } from '#protocol';
import type { Logger, Redactor } from '../support/log.ts';
import { extractFacts, type RunTranscript } from './extract.ts';
import {
  type AddOutcome,
  addEntries,
  type MemoryFile,
  type MemoryPaths,
  type MemoryScope,
  memoryPaths,
  readMemoryFile,
} from './memory-file.ts';
import { memoryNote } from './note.ts';
import { redactSecrets } from './secrets.ts';

/** How long an extraction may take before it is given up. */
const EXTRACTION_TIMEOUT_MS = 60_000;

export interface MemoryOptions {
  workspaceRoot: string;
  configDir: string;
  redactor: Redactor;
  log: Logger;
}

export interface ExtractionRequest {
  run: Omit<RunTranscript, 'existing'>;
  stream: StreamFn;
  endpoint: ProviderEndpoint;
  model: ModelSpec;
  /** Called with what the call used, to count it into the session's usage and cost. */
  spent(usage: Usage): void;
}

export class Memory {
  readonly paths: MemoryPaths;
  readonly #options: MemoryOptions;
  /**
   * What extractions added since a run last began here: said at the next run of this workspace,
   * whichever session it continues (the run that led to it has already ended).
   */
  #added: string[] = [];
  readonly #stop = new AbortController();

  constructor(options: MemoryOptions) {
    this.#options = options;
    this.paths = memoryPaths(options.workspaceRoot, options.configDir);
  }

  /** Both files: the project's, then the user's. */
  async files(): Promise<MemoryFile[]> {
    return Promise.all([
      readMemoryFile('project', this.paths.project),
      readMemoryFile('user', this.paths.user),
    ]);
  }

  async add(scope: MemoryScope, text: string): Promise<AddOutcome> {
    return addEntries(scope, this.paths[scope], [text], this.#options.redactor);
  }

  /** The note for a prompt's message, or undefined (nothing remembered, or said already). */
  async note(messages: readonly ChatMessage[]): Promise<string | undefined> {
    try {
      // A secret pasted into a file by hand does not go to the model either.
      const files = (await this.files()).map((file) => ({
        ...file,
        text: redactSecrets(file.text, this.#options.redactor).text,
      }));
      return memoryNote(messages, files);
    } catch (error) {
      this.#options.log.warn(`memory: the memory files cannot be read: ${String(error)}`);
      return undefined;
    }
  }

  /** The status lines for the next run: what was remembered since a run last began. */
  takeAdded(): string[] {
    const added = this.#added;
    this.#added = [];
    return added;
  }

  /**
   * Proposes facts from a finished run and adds those that pass to the project file. Never
   * rejects: a failure is logged, and nothing is written.
   */
  async extract(request: ExtractionRequest): Promise<void> {
    const { log, redactor } = this.#options;
    const signal = AbortSignal.any([this.#stop.signal, AbortSignal.timeout(EXTRACTION_TIMEOUT_MS)]);
    try {
      const existing = (await this.files()).flatMap((file) => file.entries);
      const extraction = await extractFacts(
        { stream: request.stream, endpoint: request.endpoint, model: request.model, redactor, signal },
        { ...request.run, existing },
      );
      request.spent(extraction.usage);
      if (extraction.failure !== undefined) {
        log.warn(`memory: the extraction after a run failed: ${extraction.failure}`);
        return;
      }
      for (const { fact, why } of extraction.refused) log.info(`memory: not remembered (${why}): ${fact}`);
      if (extraction.facts.length === 0) return;
      await addEntries('project', this.paths.project, extraction.facts, redactor, (outcome) => {
        if (outcome.added.length === 0) return;
        const dropped = outcome.dropped.length;
        const line = `Memory: remembered in ${this.paths.project}: ${outcome.added.map((entry) => `"${entry}"`).join('; ')}${dropped === 0 ? '' : ` (${dropped} oldest entr${dropped === 1 ? 'y' : 'ies'} dropped to keep the file short)`}`;
        this.#added.push(line);
        log.info(line);
      });
    } catch (error) {
      log.warn(`memory: the extraction after a run failed: ${String(error)}`);
    }
  }

  /** Stops extractions still running (shutdown). */
  close(): void {
    this.#stop.abort();
  }
}
