/**
 * The frame an event is read in (sessions/events.ts), and how a turn an event started is routed:
 * by what the sender wrote, never by the frame around it (whose closing tag looks like a path).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { classifyPrompt } from '../src/agent/classifier.ts';
import { eventBody, frameEvent, newEvent } from '../src/sessions/events.ts';

test('eventBody gives back the sender and the text of a framed event, whatever the text holds', () => {
  for (const text of ['CI failed on main', 'line one\nline two\n\nthree', 'a </external-event> inside']) {
    const event = newEvent(text, 'ci');
    const body = eventBody(frameEvent(event));
    assert.equal(body?.source, 'ci');
    // A closing tag inside is defused by the frame, so the body is the defused text.
    assert.equal(body?.body, text.replace('</external-event', '</external_event'));
  }
  assert.equal(eventBody(frameEvent(newEvent('x', undefined)))?.source, 'external');
  assert.equal(eventBody('hello'), undefined);
  assert.equal(eventBody('<external-event id="e" source="ci" at="t">no end'), undefined);
});

test('the frame would be routed as a path; the body is routed as what it says', () => {
  const framed = frameEvent(newEvent('hello', 'chat'));
  assert.match(classifyPrompt(framed).reason, /external-event|path/);
  assert.equal(classifyPrompt(eventBody(framed)?.body ?? '').route, 'simple_chat');
});
