import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type FrameEvent, FrameParser, REJECTED_PREFIX_BYTES } from '../src/connection/framing.ts';

const frame = (body: string) => `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
const bodies = (events: FrameEvent[]) =>
  events.map((event) => (event.type === 'frame' ? event.body.toString('utf8') : event.type));

describe('FrameParser', () => {
  test('reads frames split at every possible byte boundary', () => {
    const input = Buffer.from(frame('{"a":"ü"}') + frame('{"b":2}'));
    for (let split = 0; split <= input.length; split++) {
      const parser = new FrameParser();
      const events = [...parser.push(input.subarray(0, split)), ...parser.push(input.subarray(split))];
      assert.deepEqual(bodies(events), ['{"a":"ü"}', '{"b":2}'], `split at ${split}`);
      assert.ok(parser.idle);
    }
  });

  test('reads a message delivered one byte at a time', () => {
    const parser = new FrameParser();
    const events = [...Buffer.from(frame('{"x":[1,2,3]}'))].flatMap((byte) =>
      parser.push(Buffer.from([byte])),
    );
    assert.deepEqual(bodies(events), ['{"x":[1,2,3]}']);
  });

  test('counts Content-Length in bytes, not characters', () => {
    const parser = new FrameParser();
    const body = '{"emoji":"🦀🦀"}';
    assert.deepEqual(bodies(parser.push(Buffer.from(frame(body)))), [body]);
  });

  test('accepts Content-Type with utf-8 or utf8, any header order and case', () => {
    const parser = new FrameParser();
    const input =
      'content-type: application/vscode-jsonrpc; charset=utf8\r\nCONTENT-LENGTH: 2\r\n\r\n{}' +
      'Content-Length: 2\r\nContent-Type: application/vscode-jsonrpc; charset=UTF-8\r\n\r\n[]';
    assert.deepEqual(bodies(parser.push(Buffer.from(input))), ['{}', '[]']);
  });

  test('skips an oversized body without buffering it and stays in sync', () => {
    const parser = new FrameParser({ maxMessageBytes: 10 });
    const big = 'x'.repeat(25);
    const events = [
      ...parser.push(Buffer.from(`Content-Length: 25\r\n\r\n${big.slice(0, 5)}`)),
      ...parser.push(Buffer.from(big.slice(5) + frame('{"ok":1}'))),
    ];
    assert.equal(events.length, 3);
    const detail = 'message of 25 bytes exceeds the limit of 10 bytes';
    assert.deepEqual(events[0], { type: 'skipping', contentLength: 25, detail });
    assert.deepEqual(events[1], {
      type: 'rejected',
      reason: 'too_large',
      contentLength: 25,
      detail,
      prefix: Buffer.from(big),
    });
    assert.deepEqual(bodies(events.slice(2)), ['{"ok":1}']);
  });

  test('reports an oversized body once its first bytes are in, keeping only those', () => {
    const parser = new FrameParser({ maxMessageBytes: 1000 });
    const body = Buffer.alloc(100_000, 'y');
    assert.deepEqual(
      parser.push(Buffer.from('Content-Length: 100000\r\n\r\n')).map((e) => e.type),
      ['skipping'],
      'nothing to answer before the body starts',
    );
    assert.deepEqual(parser.push(body.subarray(0, REJECTED_PREFIX_BYTES - 1)), []);
    const [rejected, ...rest] = parser.push(body.subarray(REJECTED_PREFIX_BYTES - 1, 50_000));
    assert.equal(rejected?.type, 'rejected');
    assert.equal(rejected?.type === 'rejected' ? rejected.prefix.length : 0, REJECTED_PREFIX_BYTES);
    assert.deepEqual(rest, []);
    assert.equal(parser.idle, false);
    assert.deepEqual(bodies(parser.push(Buffer.concat([body.subarray(50_000), Buffer.from(frame('{}'))]))), [
      '{}',
    ]);
    assert.ok(parser.idle);
  });

  for (const [name, length] of [
    ['beyond maxSkipBytes', '2000001'],
    ['of 11 digits', '99999999999'],
    ['of 40 digits', '9'.repeat(40)],
  ] as const) {
    test(`fails on a Content-Length ${name} instead of waiting for its bytes`, () => {
      const parser = new FrameParser({ maxMessageBytes: 1000, maxSkipBytes: 2_000_000 });
      const events = parser.push(Buffer.from(`Content-Length: ${length}\r\n\r\n${frame('{}')}`));
      assert.equal(events.length, 1);
      const [event] = events;
      assert.equal(event?.type === 'fatal' ? event.reason : event?.type, 'too_large');
      assert.match(
        event?.type === 'fatal' ? event.detail : '',
        /^Content-Length \d+…? exceeds 2000000 bytes, the most the server will skip \(maxMessageBytes is 1000\)$/,
      );
    });
  }

  test('a length up to maxSkipBytes, or up to a larger maxMessageBytes, is not fatal', () => {
    const skipped = new FrameParser({ maxMessageBytes: 1000, maxSkipBytes: 2_000_000 });
    assert.deepEqual(
      skipped.push(Buffer.from('Content-Length: 2000000\r\n\r\n')).map((e) => e.type),
      ['skipping'],
    );
    const accepted = new FrameParser({ maxMessageBytes: 3_000_000, maxSkipBytes: 2_000_000 });
    assert.deepEqual(accepted.push(Buffer.from('Content-Length: 2500000\r\n\r\n')), []);
  });

  test('skips a body in an unsupported charset', () => {
    const parser = new FrameParser();
    const events = parser.push(
      Buffer.from(`Content-Length: 2\r\nContent-Type: text/json; charset=latin1\r\n\r\n{}${frame('[]')}`),
    );
    assert.equal(events[0]?.type, 'rejected');
    assert.deepEqual(bodies(events.slice(1)), ['[]']);
  });

  test('a zero-length body is a frame (an empty body, which the gate answers as a parse error)', () => {
    assert.deepEqual(bodies(new FrameParser().push(Buffer.from('Content-Length: 0\r\n\r\n'))), ['']);
  });

  for (const [name, input] of [
    ['a JSON line without headers', '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}\n'],
    ['a JSON line ended by CRLF', '{"jsonrpc":"2.0","id":1,"method":"initialize"}\r\n'],
    ['headers ended by bare LF, then the body', 'Content-Length: 2\n\n{}\n'],
  ] as const) {
    test(`fails at once on ${name}: answered, not waited on for a blank line`, () => {
      const events = new FrameParser().push(Buffer.from(input));
      assert.equal(events.length, 1);
      assert.equal(events[0]?.type, 'fatal');
      assert.match(events[0]?.type === 'fatal' ? events[0].detail : '', /malformed header line/);
    });
  }

  test('a header line still arriving is not judged before its end', () => {
    const parser = new FrameParser();
    assert.deepEqual(parser.push(Buffer.from('Content-Len')), []);
    assert.deepEqual(bodies(parser.push(Buffer.from('gth: 2\r\n\r\n{}'))), ['{}']);
  });

  for (const [name, header, detail] of [
    ['non-numeric length', 'Content-Length: 2abc', /"2abc" is not a non-negative decimal integer/],
    ['negative length', 'Content-Length: -1', /"-1" is not a non-negative decimal integer/],
    ['fractional length', 'Content-Length: 1.5', /is not a non-negative decimal integer/],
    ['empty length', 'Content-Length: ', /is not a non-negative decimal integer/],
    ['no Content-Length', 'Content-Type: application/json', /no Content-Length/],
    ['a line without a colon', 'Content-Length 5', /malformed header line/],
    ['stray text before the header', 'hello\r\nContent-Length: 2', /malformed header line "hello"/],
    ['conflicting lengths', 'Content-Length: 2\r\nContent-Length: 3', /conflicting Content-Length/],
  ] as const) {
    test(`fails on ${name} and reads nothing more`, () => {
      const parser = new FrameParser();
      const events = parser.push(Buffer.from(`${header}\r\n\r\n{}${frame('{}')}`));
      assert.equal(events.length, 1);
      const [event] = events;
      assert.equal(event?.type, 'fatal');
      assert.match(event?.type === 'fatal' ? event.detail : '', detail);
      assert.deepEqual(parser.push(Buffer.from(frame('{}'))), []);
    });
  }

  test('fails on a header section that never ends', () => {
    const parser = new FrameParser({ maxHeaderBytes: 64 });
    const events = parser.push(Buffer.from(`X-Padding: ${'a'.repeat(100)}`));
    assert.equal(events[0]?.type, 'fatal');
  });

  test('a body shorter than announced leaves the parser waiting, not desynchronised', () => {
    const parser = new FrameParser();
    assert.deepEqual(parser.push(Buffer.from('Content-Length: 10\r\n\r\n{}')), []);
    assert.equal(parser.idle, false);
  });
});
