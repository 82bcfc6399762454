/**
 * The requirements of the protocol, read from the normative text itself (protocol-spec/README.md,
 * §0): each is a list item that starts with its bold id and its italic tier, then, for one the
 * suite checks only through the Santra profile, that marker:
 *
 *   - **[SANTRA-PROMPT-001]** *(mandatory)* The `prompt` response MUST be sent …
 *   - **[SANTRA-APPROVE-001]** *(mandatory)* *(Santra profile)* For a client that declared …
 *
 * so the ids the suite checks can never drift from the spec: a check naming an id the spec does not
 * have fails to load, and `--list` prints what the spec says.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export type Tier = 'mandatory' | 'capability-gated' | 'advisory' | 'optional';
export type Subject = 'server' | 'client';
/**
 * What a server must offer for the suite to check a requirement (§0): `core`, the protocol alone;
 * `santra`, also the Santra profile of §0.1.1 (Santra's agents, tools and environment). Either
 * way the requirement binds every server.
 */
export type Profile = 'core' | 'santra';
export const PROFILES: readonly Profile[] = ['core', 'santra'];

export interface Requirement {
  /** `SANTRA-PROMPT-001`. */
  id: string;
  /** `PROMPT`. */
  area: string;
  tier: Tier;
  /** For a capability-gated requirement: the method or phase type the server declares. */
  capability?: string;
  /** Who it binds; the server suite checks the server's, the client mode the client's. */
  subject: Subject;
  /** `santra` when the spec marks it *(Santra profile)*: the suite can provoke it only there. */
  profile: Profile;
  /** The numbered section it belongs to, e.g. `7.1`, or `0` for the preamble. */
  section: string;
  /** The section's heading, e.g. `7. Runs: prompt, phase, approve, ask`. */
  sectionTitle: string;
  /** The requirement's sentence, markdown kept, on one line. */
  text: string;
  /** Why the suite cannot observe it, when the spec says so. */
  notCheckable?: string;
}

const ITEM = /^- \*\*\[(SANTRA-([A-Z]+)-(\d{3}))\]\*\* \*\(([^)]*)\)\*(?: \*\(([^)]*)\)\*)?\s*(.*)$/;
const SANTRA_PROFILE_MARKER = 'Santra profile';
/** A numbered section (`## 7. Runs…`, `### 7.2 …`) or an unnumbered one (`## Client requirements`). */
const HEADING = /^(#{2,3}) (?:(\d+(?:\.\d+)?)\.? )?(.*)$/;
const PARAGRAPH = /^(\d+\.\d+)\. /;
const NOT_CHECKABLE = /\s*\*Not checkable: (.*?)\*\s*$/;
const TIERS: readonly Tier[] = ['mandatory', 'capability-gated', 'advisory', 'optional'];

/**
 * A file of the package (`protocol-spec/README.md`): the nearest directory above this module that
 * has it. From source that is the checkout; from the bundle in dist/chunks, the installed package
 * (package.json's `files` ships protocol-spec/README.md and protocol-spec/schema).
 */
export function packageFile(relative: string): string {
  const start = dirname(fileURLToPath(import.meta.url));
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, relative))) return join(dir, relative);
    if (dirname(dir) === dir) return join(start, relative);
  }
}

export const SPEC_PATH = packageFile('protocol-spec/README.md');

/** `mandatory`, `client: advisory`, `capability-gated: \`session/list\`` → its parts. */
function parseTier(tag: string, id: string): Pick<Requirement, 'tier' | 'capability' | 'subject'> {
  let rest = tag.trim();
  let subject: Subject = 'server';
  if (rest.startsWith('client:')) {
    subject = 'client';
    rest = rest.slice('client:'.length).trim();
  }
  const [word, capability] = rest.split(':').map((part) => part.trim().replaceAll('`', ''));
  const tier = TIERS.find((known) => known === word);
  if (tier === undefined)
    throw new Error(`${id}: unknown tier "${tag}"; use one of ${TIERS.join(', ')} (optionally "client: …")`);
  if ((tier === 'capability-gated') !== (capability !== undefined && capability !== ''))
    throw new Error(`${id}: "capability-gated: X" names the capability X, and only that tier has one`);
  return capability === undefined || capability === '' ? { tier, subject } : { tier, capability, subject };
}

/** The marker after the tier: none (core) or `*(Santra profile)*`. */
function parseProfile(marker: string | undefined, id: string): Profile {
  if (marker === undefined) return 'core';
  if (marker === SANTRA_PROFILE_MARKER) return 'santra';
  throw new Error(
    `${id}: unknown marker "*(${marker})*" after the tier; the only one is *(${SANTRA_PROFILE_MARKER})*`,
  );
}

/** Every requirement of `markdown`, in document order; throws on a malformed or repeated id. */
export function parseRequirements(markdown: string): Requirement[] {
  const found: Requirement[] = [];
  let section = '0';
  let sectionTitle = '';
  let current: Requirement | undefined;
  let inFence = false;
  const finish = () => {
    if (current === undefined) return;
    const match = NOT_CHECKABLE.exec(current.text);
    if (match !== null) {
      current.notCheckable = match[1];
      current.text = current.text.slice(0, match.index);
    }
    found.push(current);
    current = undefined;
  };
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) inFence = !inFence;
    if (inFence) continue;
    const item = ITEM.exec(line);
    const heading = HEADING.exec(line);
    if (item !== null) {
      finish();
      const [, id, area, , tag, marker, text] = item as unknown as [
        string,
        string,
        string,
        string,
        string,
        string | undefined,
        string,
      ];
      current = {
        id,
        area,
        ...parseTier(tag, id),
        profile: parseProfile(marker, id),
        section,
        sectionTitle,
        text,
      };
      if (current.profile === 'santra' && current.subject === 'client')
        throw new Error(`${id}: binds the client, which has no Santra profile`);
    } else if (current !== undefined && line.startsWith('  ') && line.trim() !== '') {
      current.text += ` ${line.trim()}`;
    } else {
      finish();
      if (heading !== null) {
        const title = heading[3] as string;
        section = heading[2] ?? title;
        if (heading[1] === '##') sectionTitle = heading[2] === undefined ? title : `${section}. ${title}`;
      } else {
        const paragraph = PARAGRAPH.exec(line);
        if (paragraph !== null) section = paragraph[1] as string;
      }
    }
  }
  finish();
  const seen = new Set<string>();
  for (const requirement of found) {
    if (seen.has(requirement.id)) throw new Error(`${requirement.id} appears twice in the spec`);
    seen.add(requirement.id);
  }
  return found;
}

/** The requirements of the spec this suite ships with (or of `path`). */
export function loadRequirements(path = SPEC_PATH): Requirement[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(
      `cannot read the protocol spec at ${path} (${(error as Error).message}); the suite reads its requirements from it: reinstall santra, or run from a checkout`,
      { cause: error },
    );
  }
  return parseRequirements(text);
}
