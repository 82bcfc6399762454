/**
 * How one Santra run shows in an LSP editor, from its phases: a work-done progress whose message
 * follows the run (status lines, tool rows, the answer's latest words), the editor's log
 * (`window/logMessage`) with every tool row and the whole answer, and the answer itself as a
 * message (`window/showMessage`: Helix's status line, Neovim's message area). An editor that
 * can open documents (`window.showDocument`) also gets a multi-line answer as a markdown file.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Phase, PromptResult } from '#protocol';
import { showMessage } from './messages.ts';
import type { Connection, WorkDoneProgressServerReporter } from 'vscode-languageserver';

/** Progress messages of streamed text: at most one per this many milliseconds. */
const TEXT_REPORT_MS = 250;
const PROGRESS_CHARS = 80;

export class RunReport {
  readonly #connection: Connection;
  readonly #title: string;
  readonly #answers: AnswerFiles | undefined;
  #progress: WorkDoneProgressServerReporter | undefined;
  #rootText = '';
  #lastTextReport = 0;

  constructor(connection: Connection, title: string, answers: AnswerFiles | undefined) {
    this.#connection = connection;
    this.#title = title;
    this.#answers = answers;
  }

  /** Starts the progress; `onCancel` runs when the user cancels it in the editor. */
  async begin(onCancel: () => void): Promise<void> {
    this.#progress = await this.#connection.window.createWorkDoneProgress();
    this.#progress.token.onCancellationRequested(onCancel);
    this.#progress.begin(this.#title, undefined, 'starting', true);
    this.#connection.console.info(`santra: ${this.#title}`);
  }

  phase(phase: Phase): void {
    const root = phase.parentAgentId === undefined;
    switch (phase.type) {
      case 'status':
        this.#report(phase.text);
        if (phase.level === 'warning') this.#connection.console.warn(`santra: ${phase.text}`);
        return;
      case 'text':
        if (root) this.#rootText += phase.text;
        this.#reportText(phase.text);
        return;
      case 'thinking':
        return;
      case 'tool_call':
        this.#log(`▸ ${phase.summary ?? phase.toolName}`, phase);
        this.#report(phase.summary ?? phase.toolName);
        return;
      case 'tool_result':
        this.#log(`  ${phase.status === 'ok' ? '✓' : '✗'} ${phase.toolName}: ${phase.summary}`, phase);
        return;
      case 'section':
        this.#log(`── ${phase.title}`, phase);
        this.#report(phase.title);
        return;
      case 'error':
        this.#connection.console.error(`santra: ${phase.message}`);
        showMessage(this.#connection, 'error', `santra: ${phase.message}`);
        return;
      case 'complete':
        if (!root) this.#log(`── ${phase.agentId}: ${phase.status}`, phase);
        return;
      case 'usage':
        // A model call's cost: the report ends with the run's.
        return;
      case 'event':
        this.#log(`📨 event from ${phase.source}: ${phase.text}`, phase);
        return;
      default: {
        const _exhaustive: never = phase;
        return _exhaustive;
      }
    }
  }

  /** Ends the progress and shows the answer. */
  async end(result: PromptResult): Promise<void> {
    const answer = (result.output === '' ? this.#rootText : result.output).trim();
    this.#progress?.done();
    this.#connection.console.info(`santra: ${this.#title}: ${result.status}\n${answer}`);
    if (result.status !== 'completed') {
      showMessage(
        this.#connection,
        'warning',
        `${this.#title}: ${result.status}${answer === '' ? '' : `\n${answer}`}`,
      );
      return;
    }
    showMessage(this.#connection, 'info', answer === '' ? `${this.#title}: done` : answer);
    if (this.#answers !== undefined && answer.includes('\n')) {
      const uri = await this.#answers.write(`# ${this.#title}\n\n${answer}\n`);
      await this.#connection.window.showDocument({ uri, takeFocus: false }).catch(() => undefined);
    }
  }

  /** A run that could not start or failed outside Santra's phases. */
  failed(message: string): void {
    this.#progress?.done();
    this.#connection.console.error(`santra: ${this.#title}: ${message}`);
    showMessage(this.#connection, 'error', `${this.#title}: ${message}`);
  }

  #log(line: string, phase: Phase): void {
    const who = phase.parentAgentId === undefined ? '' : `[${phase.agentId}] `;
    this.#connection.console.log(`santra: ${who}${line}`);
  }

  #report(message: string): void {
    this.#progress?.report(oneLine(message));
  }

  #reportText(delta: string): void {
    const now = Date.now();
    if (now - this.#lastTextReport < TEXT_REPORT_MS && !delta.includes('\n')) return;
    this.#lastTextReport = now;
    const tail = this.#rootText.trim().split('\n').at(-1) ?? '';
    if (tail !== '') this.#report(tail);
  }
}

function oneLine(text: string): string {
  const line = text.replaceAll(/\s+/g, ' ').trim();
  return line.length > PROGRESS_CHARS ? `…${line.slice(-(PROGRESS_CHARS - 1))}` : line;
}

/**
 * Answers written as markdown files for editors that open documents, in a private temp folder
 * removed when the adapter ends.
 */
export class AnswerFiles {
  #dir: Promise<string> | undefined;
  #count = 0;

  async write(markdown: string): Promise<string> {
    this.#dir ??= mkdtemp(join(tmpdir(), 'santra-lsp-'));
    const path = join(await this.#dir, `answer-${++this.#count}.md`);
    await writeFile(path, markdown, { mode: 0o600 });
    return pathToFileURL(path).href;
  }

  async remove(): Promise<void> {
    if (this.#dir !== undefined) await rm(await this.#dir, { recursive: true, force: true });
  }
}
