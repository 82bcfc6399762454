/**
 * HTML to text (what web_fetch returns for a page): each construct a page is made of, and the
 * malformed input real pages have, converted to text a model can read.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { decodeEntities } from '../src/tools/html-entities.ts';
import { htmlToText } from '../src/tools/html-to-text.ts';

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

  test('a large page converts in one pass', () => {
    const html = `<html><body>${'<div><p>para <a href="/x">link</a></p><script>var x=1</script></div>'.repeat(50_000)}</body></html>`;
    const start = performance.now();
    const result = text(html);
    assert.equal(result.split('\n\n').length, 50_000);
    // Generous: a quadratic scan of this 3 MB page would take minutes.
    assert.ok(performance.now() - start < 20_000);
  });
});

describe('decodeEntities', () => {
  test('named, decimal and hex references; unknown names and bare ampersands left alone', () => {
    assert.equal(
      decodeEntities('&lt;a&gt; &amp;&amp; &quot;q&quot; &#39;s&#39; &#x1F600; &eacute;&nbsp;x'),
      '<a> && "q" \'s\' 😀 é x',
    );
    assert.equal(decodeEntities('AT&T &unknown; a=1&b=2 &#0; &#150;'), 'AT&T &unknown; a=1&b=2 \ufffd –');
  });
});
