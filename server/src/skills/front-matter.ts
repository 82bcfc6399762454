/**
 * The YAML front matter of a SKILL.md: the block between a first line `---` and the next `---`.
 * Santra has no YAML library among its dependencies, and a skill's header needs little of YAML, so
 * this reads the subset the Agent Skills format uses — top-level `key: value` pairs, single- and
 * double-quoted strings, `|` and `>` block scalars (with `-`/`+` chomping), comments, and flow or
 * block lists kept as text — and refuses anything else by line, so a header it cannot read is
 * reported rather than half-read.
 */

export type FrontMatter = Record<string, string>;

export type FrontMatterResult =
  { ok: true; fields: FrontMatter; body: string } | { ok: false; message: string };

/** Splits `text` into its front matter and body and reads the front matter. */
export function parseFrontMatter(text: string): FrontMatterResult {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (lines[0]?.trim() !== '---')
    return {
      ok: false,
      message:
        'it does not start with a front matter block: put "---", name: and description: lines, then "---" at the top',
    };
  const end = lines.findIndex((line, index) => index > 0 && /^(---|\.\.\.)\s*$/.test(line));
  if (end === -1)
    return { ok: false, message: 'its front matter is not closed: add a line "---" after the last field' };
  const parsed = parseFields(lines.slice(1, end));
  if ('message' in parsed) return { ok: false, message: parsed.message };
  return {
    ok: true,
    fields: parsed.fields,
    body: lines
      .slice(end + 1)
      .join('\n')
      .trim(),
  };
}

function parseFields(lines: readonly string[]): { fields: FrontMatter } | { message: string } {
  const fields: FrontMatter = {};
  let index = 0;
  while (index < lines.length) {
    const line = lines[index] as string;
    const at = `line ${index + 2}`;
    if (line.trim() === '' || line.trimStart().startsWith('#')) {
      index++;
      continue;
    }
    if (/^\s/.test(line))
      return { message: `front matter ${at} is indented but belongs to no field: "${line.trim()}"` };
    const match = /^([A-Za-z0-9_-]+)\s*:(?:\s+(.*))?$/.exec(line) ?? /^([A-Za-z0-9_-]+):()$/.exec(line);
    if (match === null)
      return { message: `front matter ${at} is not "key: value": "${line}" (quote a value that holds ": ")` };
    const key = match[1] as string;
    if (key in fields) return { message: `front matter ${at}: "${key}" is given twice` };
    const raw = (match[2] ?? '').trim();
    index++;
    // Lines indented under the key: a block scalar's text, or a nested list or map.
    const nested: string[] = [];
    while (index < lines.length && (/^\s/.test(lines[index] as string) || (lines[index] as string) === '')) {
      nested.push(lines[index] as string);
      index++;
    }
    const value = fieldValue(raw, nested, `${at} (${key})`);
    if (typeof value !== 'string') return value;
    fields[key] = value;
  }
  return { fields };
}

function fieldValue(raw: string, nested: readonly string[], at: string): string | { message: string } {
  const block = /^([|>])([+-]?)\s*(#.*)?$/.exec(raw);
  if (block !== null) return blockScalar(block[1] as '|' | '>', block[2] as '' | '+' | '-', nested);
  const content = nested.filter((line) => line.trim() !== '');
  if (raw === '') return content.map((line) => line.trim()).join('\n');
  if (content.length > 0) {
    // A plain or quoted scalar folded over several lines.
    if (raw.startsWith('"') || raw.startsWith("'"))
      return quoted([raw, ...content.map((line) => line.trim())].join(' '), at);
    return [raw, ...content.map((line) => line.trim())].join(' ');
  }
  if (raw.startsWith('"') || raw.startsWith("'")) return quoted(raw, at);
  return raw.replace(/\s+#.*$/, '');
}

function quoted(raw: string, at: string): string | { message: string } {
  const quote = raw[0] as string;
  let text = '';
  for (let index = 1; index < raw.length; index++) {
    const char = raw[index] as string;
    if (quote === "'" && char === "'") {
      if (raw[index + 1] === "'") {
        text += "'";
        index++;
        continue;
      }
      return rest(raw.slice(index + 1), text, at);
    }
    if (quote === '"' && char === '\\') {
      const next = raw[index + 1];
      const escapes: Record<string, string> = {
        n: '\n',
        t: '\t',
        '"': '"',
        '\\': '\\',
        '/': '/',
        r: '\r',
        '0': '\0',
      };
      if (next === undefined || escapes[next] === undefined)
        return { message: `front matter ${at}: unknown escape "\\${next ?? ''}" in a double-quoted string` };
      text += escapes[next];
      index++;
      continue;
    }
    if (quote === '"' && char === '"') return rest(raw.slice(index + 1), text, at);
    text += char;
  }
  return { message: `front matter ${at}: the string opened with ${quote} is not closed` };
}

/** After a closing quote only a comment may follow. */
function rest(after: string, text: string, at: string): string | { message: string } {
  return after.trim() === '' || after.trim().startsWith('#')
    ? text
    : { message: `front matter ${at}: unexpected text after the closing quote: "${after.trim()}"` };
}

/** `|` keeps line breaks, `>` folds them into spaces; `-` strips the final newline, `+` keeps all. */
function blockScalar(style: '|' | '>', chomp: '' | '+' | '-', nested: readonly string[]): string {
  const indents = nested
    .filter((line) => line.trim() !== '')
    .map((line) => /^\s*/.exec(line)?.[0].length ?? 0);
  const indent = indents.length === 0 ? 0 : Math.min(...indents);
  const lines = nested.map((line) => line.slice(indent));
  while (chomp !== '+' && lines.length > 0 && lines.at(-1)?.trim() === '') lines.pop();
  const text = style === '|' ? lines.join('\n') : fold(lines);
  // A field's value is used trimmed, so clipping and stripping come to the same; `+` keeps them.
  return chomp === '+' ? `${text}\n` : text;
}

function fold(lines: readonly string[]): string {
  let text = '';
  for (const line of lines) {
    if (line === '') text += '\n';
    else if (text === '' || text.endsWith('\n')) text += line;
    else text += ` ${line}`;
  }
  return text;
}
