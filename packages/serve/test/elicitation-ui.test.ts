import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ElicitRequestSchema, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { around, HOSTILE_SAMPLES, rawHostile, visibleForm } from '@airlock/kernel/testing';
import { createElicitationUI } from '../src/index.js';

/** The elicitation UI against the SDK's real server and client, linked in memory. */

const open: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  for (const thing of open.splice(0)) await thing.close();
});

async function pair(answer?: (request: ElicitRequest) => ElicitResult | Promise<ElicitResult>) {
  const server = new Server({ name: 's', version: '0' }, { capabilities: {} });
  const ui = createElicitationUI({ log: () => {} });
  ui.attach(server);
  const client = new Client({ name: 'c', version: '0' }, { capabilities: answer === undefined ? {} : { elicitation: {} } });
  const asked: ElicitRequest[] = [];
  if (answer !== undefined) client.setRequestHandler(ElicitRequestSchema, (request) => (asked.push(request), answer(request)));
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  await client.connect(b);
  open.push(client, server);
  return { ui, asked };
}

describe('createElicitationUI', () => {
  it('is not interactive before a client connects, nor with a client that cannot elicit', async () => {
    expect(createElicitationUI().interactive).toBe(false);
    const { ui } = await pair();
    expect(ui.interactive).toBe(false);
    expect(await ui.select('Allow?', ['Allow once', 'Deny'])).toBeUndefined();
  });

  it('confirm: only an explicit true is a yes', async () => {
    const answers: ElicitResult[] = [
      { action: 'accept', content: { approve: true } },
      { action: 'accept', content: { approve: false } },
      { action: 'decline' },
      { action: 'cancel' },
    ];
    const { ui, asked } = await pair(() => answers.shift()!);
    expect(ui.interactive).toBe(true);
    expect(await ui.confirm('Trust this folder?', 'It loads code.')).toBe(true);
    expect(asked[0]!.params.message).toBe('Trust this folder?\nIt loads code.');
    expect(await ui.confirm('Again?')).toBe(false);
    expect(await ui.confirm('Again?')).toBe(false);
    expect(await ui.confirm('Again?')).toBe(false);
  });

  it('input returns the text; a decline is no answer', async () => {
    const answers: ElicitResult[] = [{ action: 'accept', content: { text: 'too risky' } }, { action: 'decline' }];
    const { ui } = await pair(() => answers.shift()!);
    expect(await ui.input('Tell the model why:')).toBe('too risky');
    expect(await ui.input('Tell the model why:')).toBeUndefined();
  });

  it('a form nobody answers ends at the dialog timeout as "no", and the next one is asked', async () => {
    let calls = 0;
    const { ui } = await pair(async (request) => {
      calls++;
      if (calls === 1) return new Promise<ElicitResult>(() => {}); // a person who walked away
      return { action: 'accept', content: { choice: (request.params as unknown as { requestedSchema: { properties: { choice: { enum: string[] } } } }).requestedSchema.properties.choice.enum[0]! } };
    });
    const started = Date.now();
    expect(await ui.select('Allow?', ['Allow once', 'Deny'], { timeoutMs: 200 })).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(2000);
    expect(await ui.select('Allow?', ['Allow once', 'Deny'])).toBe('Allow once');
  });

  it('an aborted dialog ends at once as "no"', async () => {
    const { ui } = await pair(() => new Promise<ElicitResult>(() => {}));
    const controller = new AbortController();
    const answer = ui.select('Allow?', ['Allow once', 'Deny'], { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    expect(await answer).toBeUndefined();
  });
});

describe('createElicitationUI: the texts a client shows a person', () => {
  it('the message and descriptions carry every hostile character as a visible escape; choices go verbatim', async () => {
    const { ui, asked } = await pair((request) => {
      const property = Object.values((request.params as { requestedSchema: { properties: Record<string, { enum?: string[] }> } }).requestedSchema.properties)[0]!;
      return property.enum === undefined ? { action: 'decline' } : { action: 'accept', content: { choice: property.enum[1]! } };
    });
    for (const sample of HOSTILE_SAMPLES) {
      const text = around(sample);
      await ui.confirm(`Run ${text}?`, `It says ${text}`);
      await ui.input(`Say ${text}`, { placeholder: text });
      expect(await ui.select(`Pick ${text}`, ['one', text])).toBe(text);
      const [confirm, input, select] = asked.splice(0).map((r) => r.params as { message: string; requestedSchema: { properties: Record<string, { description?: string; enum?: string[] }> } });
      const shown = [confirm!.message, confirm!.requestedSchema.properties['approve']!.description!, input!.message, select!.message];
      for (const field of shown) {
        expect(rawHostile(field, { lines: true }), sample.name).toEqual([]);
        if (sample.text !== '\n') expect(field, sample.name).toContain(visibleForm(sample.text));
      }
      const placeholder = input!.requestedSchema.properties['text']!.description!;
      expect(rawHostile(placeholder), sample.name).toEqual([]);
      expect(placeholder, sample.name).toContain(visibleForm(sample.text));
      expect(select!.requestedSchema.properties['choice']!.enum).toEqual(['one', text]);
    }
  });
});
