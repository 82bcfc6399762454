/**
 * Runs the prompt router (server/src/agent/classifier.ts) over the labelled table
 * (server/test/fixtures/routing-prompts.ts), prints its accuracy, precision and recall per route,
 * the confusion matrix and the misrouted prompts, and rewrites the generated block of
 * docs/routing.md. `--check` rewrites nothing and exits 1 when the block is stale. Exits 1 when a
 * prompt labelled `agent_task` went to a tool-less route, or when the markers are missing.
 *
 * The rendering functions are exported for server/test/classifier.test.ts, which checks that the
 * block in docs/routing.md is what this script would write.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { classifyPrompt, type Route } from '../server/src/agent/classifier.ts';
import { ROUTING_PROMPTS, type RoutingCase } from '../server/test/fixtures/routing-prompts.ts';

export const ROUTING_DOC = new URL('../docs/routing.md', import.meta.url);
export const BEGIN = '<!-- BEGIN GENERATED: routing -->';
export const END = '<!-- END GENERATED: routing -->';

const ROUTES: Route[] = ['simple_chat', 'direct_answer', 'agent_task'];

export interface RoutedCase extends RoutingCase {
  got: Route;
  reason: string;
}

export interface RoutingReport {
  cases: RoutedCase[];
  correct: number;
  /** confusion[expected][got] */
  confusion: Record<Route, Record<Route, number>>;
  /** Prompts labelled `agent_task` that went to a route without tools. */
  toolless: RoutedCase[];
}

export function routingReport(table: RoutingCase[] = ROUTING_PROMPTS): RoutingReport {
  const zero = (): Record<Route, number> => ({ simple_chat: 0, direct_answer: 0, agent_task: 0 });
  const confusion = { simple_chat: zero(), direct_answer: zero(), agent_task: zero() };
  const cases = table.map((entry): RoutedCase => {
    const { route, reason } = classifyPrompt(entry.prompt);
    confusion[entry.route][route]++;
    return { ...entry, got: route, reason };
  });
  return {
    cases,
    correct: cases.filter((c) => c.got === c.route).length,
    confusion,
    toolless: cases.filter((c) => c.route === 'agent_task' && c.got !== 'agent_task'),
  };
}

const percent = (part: number, whole: number): string =>
  whole === 0 ? '–' : `${((100 * part) / whole).toFixed(1)}%`;

/** A prompt on one table line: newlines shown as ⏎, pipes escaped, long ones cut. */
function cell(prompt: string): string {
  const flat = prompt.replace(/\r?\n/g, ' ⏎ ').replace(/\s+/g, ' ').trim();
  const cut = flat.length > 90 ? `${flat.slice(0, 90)}…` : flat;
  return cut.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/`/g, '\\`').replace(/</g, '&lt;');
}

/** The generated block, markers included: summary, per-route numbers, confusion matrix, misses. */
export function renderRoutingReport(report: RoutingReport): string {
  const { cases, correct, confusion, toolless } = report;
  const labelled = (route: Route) => ROUTES.reduce((sum, got) => sum + confusion[route][got], 0);
  const predicted = (route: Route) => ROUTES.reduce((sum, expected) => sum + confusion[expected][route], 0);
  const projectCases = cases.filter((c) => c.route === 'agent_task').length;
  const codeQuestions = cases.filter((c) => c.category === 'code_question').length;
  const categories = [...new Set(cases.map((c) => c.category))];
  const misses = cases.filter((c) => c.got !== c.route);
  return [
    BEGIN,
    `${cases.length} prompts (${codeQuestions} of them questions about the project's code), routed by \`classifyPrompt\`:`,
    '',
    `- accuracy: **${correct} / ${cases.length} = ${percent(correct, cases.length)}**`,
    `- prompts labelled \`agent_task\` sent to a route without tools: **${toolless.length} of ${projectCases}**`,
    '',
    '| route | labelled | routed there | correct | precision | recall |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    ...ROUTES.map((route) => {
      const hits = confusion[route][route];
      return `| \`${route}\` | ${labelled(route)} | ${predicted(route)} | ${hits} | ${percent(hits, predicted(route))} | ${percent(hits, labelled(route))} |`;
    }),
    '',
    'Confusion matrix (rows: the label; columns: the route taken):',
    '',
    `| labelled \\ routed | ${ROUTES.map((r) => `\`${r}\``).join(' | ')} |`,
    `| --- | ${ROUTES.map(() => '---:').join(' | ')} |`,
    ...ROUTES.map((route) => `| \`${route}\` | ${ROUTES.map((got) => confusion[route][got]).join(' | ')} |`),
    '',
    '| category | label | prompts | correct |',
    '| --- | --- | ---: | ---: |',
    ...categories.map((category) => {
      const inCategory = cases.filter((c) => c.category === category);
      const labels = [...new Set(inCategory.map((c) => `\`${c.route}\``))].join(', ');
      const right = inCategory.filter((c) => c.got === c.route).length;
      return `| ${category} | ${labels} | ${inCategory.length} | ${right} |`;
    }),
    '',
    misses.length === 0 ? 'No prompt is misrouted.' : `Misrouted prompts (${misses.length}):`,
    ...(misses.length === 0
      ? []
      : [
          '',
          '| prompt | label | routed | reason given |',
          '| --- | --- | --- | --- |',
          ...misses.map((c) => `| ${cell(c.prompt)} | \`${c.route}\` | \`${c.got}\` | ${cell(c.reason)} |`),
        ]),
    END,
  ].join('\n');
}

/** `doc` with its generated block replaced by `block`; undefined when the markers are missing. */
export function spliceRoutingReport(doc: string, block: string): string | undefined {
  const start = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  if (start === -1 || end === -1 || end < start) return undefined;
  return doc.slice(0, start) + block + doc.slice(end + END.length);
}

if (import.meta.main) {
  const check = process.argv.includes('--check');
  const report = routingReport();
  const block = renderRoutingReport(report);
  console.log(block.split('\n').slice(1, -1).join('\n'));
  const doc = await readFile(ROUTING_DOC, 'utf8');
  const updated = spliceRoutingReport(doc, block);
  if (updated === undefined) {
    console.error(`docs/routing.md has no ${BEGIN} … ${END} markers.`);
    process.exit(1);
  }
  if (updated !== doc) {
    if (check) {
      console.error('docs/routing.md is stale: run `npm run routing:report`.');
      process.exitCode = 1;
    } else {
      await writeFile(ROUTING_DOC, updated);
      console.log('\nRewrote the generated block of docs/routing.md.');
    }
  }
  for (const c of report.toolless) {
    console.error(`PROJECT PROMPT WITHOUT TOOLS: ${JSON.stringify(c.prompt)} -> ${c.got} (${c.reason})`);
  }
  if (report.toolless.length > 0) process.exitCode = 1;
}
