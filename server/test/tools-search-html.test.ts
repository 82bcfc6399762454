/**
 * HTML to text (what web_fetch returns for a page): each construct a page is made of, and the
 * malformed input real pages have, converted to text a model can read.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { htmlToText } from '../src/tools/web/html-to-text.ts';
import { withCpuTime } from './helpers/cpu-time.ts';

const text = (html: string, base = 'https://site.test/dir/page.html') => htmlToText(html, base).text;

describe('htmlToText', () => {
  test('drops scripts, styles, navigation, noscript, templates, SVG and comments', () => {
    const html =
      '<style>p{}</style><script>if (a < b) document.write("</p>")</script><nav><ul><li>Menu</li></ul></nav>' +
      '<noscript>Turn on JS</noscript><template><p>tpl</p></template><svg><text>logo</text></svg><!-- <p>hidden</p> -->' +
      '<p>Kept</p>';
    assert.equal(text(html), 'Kept');
  });

  test('the title comes from <title>, even in an unclosed <head>', () => {
    const page = htmlToText('<html><head><title> A &amp; B </title><body><p>x</p>');
    assert.equal(page.title, 'A & B');
    assert.equal(page.text, 'x');
  });

  test('blocks on their own lines, headings as #, paragraphs separated by a blank line', () => {
    assert.equal(
      text('<h2>Install</h2><p>Run   the\n installer.</p><div>one</div><div>two</div><hr><p>end<br>next</p>'),
      '## Install\n\nRun the installer.\n\none\ntwo\n\n---\n\nend\nnext',
    );
  });

  test('lists: bullets, numbers (from start=), nesting indented', () => {
    assert.equal(
      text('<ul><li>a</li><li>b<ol start="3"><li>c</li><li>d</li></ol></li></ul><p>after</p>'),
      '- a\n- b\n  3. c\n  4. d\n\nafter',
    );
  });

  test('links as text (absolute url); not when the text is the URL, for fragments or javascript:', () => {
    assert.equal(
      text(
        '<p><a href="../guide.html#setup">Setup</a>, <a href="https://x.test/">https://x.test/</a>, <a href="#top">Top</a>, <a href="javascript:void(0)">Menu</a>, <a href="mailto:a@b.test">mail</a></p>',
      ),
      'Setup (https://site.test/guide.html#setup), https://x.test/, Top, Menu, mail (mailto:a@b.test)',
    );
  });

  test('preformatted text is kept as is; inline code in backticks', () => {
    assert.equal(
      text('<p>Use <code>npm ci</code>:</p><pre>\n$ npm ci\n  done &lt;ok&gt;\n</pre><p>Then</p>'),
      'Use `npm ci`:\n\n$ npm ci\n  done <ok>\n\nThen',
    );
  });

  test('preformatted text keeps its first-line indent, blank lines and trailing spaces, also first on the page', () => {
    const code = '    def f():\n        pass\n\n\n    x = 1  \n\tdone';
    assert.equal(text(`<pre><code>${code}</code></pre>`), code);
    assert.equal(text(`<nav>menu</nav><pre>\n${code}\n</pre><p>after</p>`), `${code}\n\nafter`);
    assert.equal(text(`<p>before</p><pre>  a<br>  b\r\n  c</pre>`), 'before\n\n  a\n  b\n  c');
    // Outside <pre> runs of blank lines still collapse, and a NUL in the page is no line break.
    assert.equal(text('<p>a</p><br><br><br><p>b\u0000c</p>'), 'a\n\nb\ufffdc');
  });

  test('tables as rows of cells separated by |', () => {
    assert.equal(
      text('<table><tr><th>Name</th><th>Size</th></tr><tr><td>a</td><td>1</td></tr></table>'),
      'Name | Size\na | 1',
    );
  });

  test('images by their alt text, blockquotes marked', () => {
    assert.equal(
      text('<p>See<img src="x.png" alt="the chart"></p><blockquote>Quoted</blockquote>'),
      'See [image: the chart]\n\n> Quoted',
    );
  });

  test('malformed markup: unclosed tags, stray <, unterminated comments and scripts never throw', () => {
    assert.equal(text('<p>a < b and <b>bold<p>next'), 'a < b and bold\n\nnext');
    assert.equal(text('<p>before<!-- never closed'), 'before');
    assert.equal(text('<p>before<script>never closed'), 'before');
    assert.equal(text('<div attr="x>y">quoted &gt; fine</div>'), 'quoted > fine');
  });

  test('a large page converts in one pass', async () => {
    const html = `<html><body>${'<div><p>para <a href="/x">link</a></p><script>var x=1</script></div>'.repeat(50_000)}</body></html>`;
    const { result, cpuMs } = await withCpuTime(() => text(html));
    assert.equal(result.split('\n\n').length, 50_000);
    // Generous: one pass over this 3 MB page takes about 200 ms of CPU, a quadratic scan minutes.
    // CPU time, not wall-clock time: waiting for a core does not count.
    assert.ok(cpuMs < 5000, `${Math.round(cpuMs)} ms of CPU time`);
  });
});

describe('character references (the entities package)', () => {
  test('named, decimal and hex references; unknown names and bare ampersands left alone', () => {
    assert.equal(
      text('<p>&lt;a&gt; &amp;&amp; &quot;q&quot; &#39;s&#39; &#x1F600; &eacute;&nbsp;x</p>'),
      // A no-break space is white space: it collapses like any other outside <pre>.
      '<a> && "q" \'s\' 😀 é x',
    );
    assert.equal(text('<p>AT&T &unknown; a=1&b=2 &#0; &#150;</p>'), 'AT&T &unknown; a=1&b=2 \ufffd –');
  });

  test('every HTML name decodes, not only a hand-picked list', () => {
    assert.equal(
      text('<p>na&iuml;ve &Iuml; &hellip; &notin; &bigstar; &ldquo;q&rdquo; &NotNestedLessLess; &half;</p>'),
      'naïve Ï … ∉ ★ “q” ⪡̸ ½',
    );
    assert.equal(htmlToText('<title>Caf&eacute; &amp; na&iuml;ve</title>').title, 'Café & naïve');
  });

  test('numeric references: decimal, hex, Windows-1252 meanings of C1, out of range as U+FFFD', () => {
    assert.equal(
      text('<p>&#65;&#x42;&#X43; &#8364; &#x20AC; &#128; &#x92; &#xD800; &#x110000; &#1114112;</p>'),
      'ABC € € € ’ \ufffd \ufffd \ufffd',
    );
  });

  test('malformed references stay as text', () => {
    assert.equal(
      text('<p>&#; &#x; &#xZZ; &; & amp; &unknown; &9; AT&T;</p>'),
      '&#; &#x; &#xZZ; &; & amp; &unknown; &9; AT&T;',
    );
  });

  test('in attributes, a name not ended by ; before = or a letter stays as text (a URL query)', () => {
    assert.equal(
      text('<a href="https://x.test/?a=1&copy=2&amp;b=3">q</a>'),
      'q (https://x.test/?a=1&copy=2&b=3)',
    );
  });
});
