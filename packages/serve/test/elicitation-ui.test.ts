import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ElicitRequestSchema, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { around, HOSTILE_SAMPLES, rawHostile, visibleForm } from '@airlock/kernel/testing';
import type { AskRequest } from '@airlock/contract';
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

const ALLOW: AskRequest = { kind: 'choice', title: 'Allow?', choices: [{ id: 'once', label: 'Allow once' }, { id: 'deny', label: 'Deny' }] };

/** The one field of the form a request asked for. */
function field(request: ElicitRequest): { type: string; enum?: string[]; enumNames?: string[]; description?: string } {
  return Object.values((request.params as unknown as { requestedSchema: { properties: Record<string, never> } }).requestedSchema.properties)[0]!;
}

describe('createElicitationUI', () => {
  it('is not interactive before a client connects, nor with a client that cannot elicit', async () => {
    expect(createElicitationUI().interactive).toBe(false);
    expect(await createElicitationUI().ask(ALLOW)).toEqual({ noAnswer: { kind: 'unavailable', detail: 'no MCP client is connected' } });
    const { ui } = await pair();
    expect(ui.interactive).toBe(false);
    expect(await ui.ask(ALLOW)).toMatchObject({ noAnswer: { kind: 'unavailable', detail: expect.stringContaining('did not declare the elicitation capability') } });
  });

  it('a choice is a field whose values are the ids, titled with the labels; the value sent back is the answer', async () => {
    const { ui, asked } = await pair((request) => ({ action: 'accept', content: { choice: field(request).enum![1]! } }));
    expect(ui.interactive).toBe(true);
    expect(await ui.ask(ALLOW)).toEqual({ id: 'deny' });
    expect(field(asked[0]!)).toMatchObject({ type: 'string', enum: ['once', 'deny'], enumNames: ['Allow once', 'Deny'] });
  });

  it('confirm: a boolean field, true is yes and false is no; decline and cancel say which', async () => {
    const answers: ElicitResult[] = [
      { action: 'accept', content: { approve: true } },
      { action: 'accept', content: { approve: false } },
      { action: 'decline' },
      { action: 'cancel' },
    ];
    const { ui, asked } = await pair(() => answers.shift()!);
    const trust: AskRequest = { kind: 'confirm', title: 'Trust this folder?', message: 'It loads code.' };
    expect(await ui.ask(trust)).toEqual({ id: 'yes' });
    expect(asked[0]!.params.message).toBe('Trust this folder?\nIt loads code.');
    expect(await ui.ask(trust)).toEqual({ id: 'no' });
    expect(await ui.ask(trust)).toEqual({ noAnswer: { kind: 'declined' } });
    expect(await ui.ask(trust)).toEqual({ noAnswer: { kind: 'cancelled', detail: 'the MCP client cancelled the form' } });
  });

  it('text returns what was typed; a decline is no answer', async () => {
    const answers: ElicitResult[] = [{ action: 'accept', content: { text: 'too risky' } }, { action: 'decline' }];
    const { ui } = await pair(() => answers.shift()!);
    expect(await ui.ask({ kind: 'text', title: 'Tell the model why:' })).toEqual({ text: 'too risky' });
    expect(await ui.ask({ kind: 'text', title: 'Tell the model why:' })).toEqual({ noAnswer: { kind: 'declined' } });
  });

  it('a value that is not one of the ids, or of the wrong type, counts as no and says what came', async () => {
    const answers: ElicitResult[] = [
      { action: 'accept', content: { choice: 'Allow forever and ever' } },
      { action: 'accept', content: { choice: 7 } },
      { action: 'accept', content: {} },
    ];
    const { ui } = await pair(() => answers.shift()!);
    expect(await ui.ask(ALLOW)).toEqual({ noAnswer: { kind: 'invalid', detail: 'got "Allow forever and ever"; the choices are "once", "deny"' } });
    expect(await ui.ask(ALLOW)).toEqual({ noAnswer: { kind: 'invalid', detail: "the MCP client sent 7 in the form's choice field" } });
    expect(await ui.ask(ALLOW)).toEqual({ noAnswer: { kind: 'invalid', detail: "the MCP client sent nothing in the form's choice field" } });
  });

  it('a client that answers the form with an error: nobody could answer, and the next form is asked', async () => {
    let calls = 0;
    const { ui } = await pair(() => {
      if (++calls === 1) throw new Error('no form support after all');
      return { action: 'accept', content: { choice: 'once' } };
    });
    expect(await ui.ask(ALLOW)).toMatchObject({ noAnswer: { kind: 'unavailable', detail: expect.stringContaining('no form support after all') } });
    expect(await ui.ask(ALLOW)).toEqual({ id: 'once' });
  });

  it('a form nobody answers ends at the ask\'s time limit, and the next one is asked', async () => {
    let calls = 0;
    const { ui } = await pair(async (request) => {
      calls++;
      if (calls === 1) return new Promise<ElicitResult>(() => {}); // a person who walked away
      return { action: 'accept', content: { choice: field(request).enum![0]! } };
    });
    expect(await ui.ask(ALLOW, { timeoutMs: 200 })).toEqual({ noAnswer: { kind: 'timeout', timeoutMs: 200 } });
    expect(await ui.ask(ALLOW)).toEqual({ id: 'once' });
  });

  it('an aborted ask ends at once as "aborted"', async () => {
    const { ui, asked } = await pair(() => new Promise<ElicitResult>(() => {}));
    const controller = new AbortController();
    const answer = ui.ask(ALLOW, { signal: controller.signal });
    await vi.waitFor(() => expect(asked).toHaveLength(1));
    controller.abort();
    expect(await answer).toEqual({ noAnswer: { kind: 'aborted' } });
  });
});

describe('createElicitationUI: the texts a client shows a person', () => {
  it('the message, descriptions and labels carry every hostile character as a visible escape; ids go verbatim', async () => {
    const { ui, asked } = await pair((request) => {
      const property = field(request);
      return property.enum === undefined ? { action: 'decline' } : { action: 'accept', content: { choice: property.enum[1]! } };
    });
    for (const sample of HOSTILE_SAMPLES) {
      const text = around(sample);
      await ui.ask({ kind: 'confirm', title: `Run ${text}?`, message: `It says ${text}` });
      await ui.ask({ kind: 'text', title: `Say ${text}`, placeholder: text });
      expect(await ui.ask({ kind: 'choice', title: `Pick ${text}`, choices: [{ id: 'one', label: 'one' }, { id: text, label: text }] })).toEqual({ id: text });
      const [confirm, input, select] = asked.splice(0);
      const shown = [confirm!.params.message as string, field(confirm!).description!, input!.params.message as string, select!.params.message as string];
      for (const part of shown) {
        expect(rawHostile(part, { lines: true }), sample.name).toEqual([]);
        if (sample.text !== '\n') expect(part, sample.name).toContain(visibleForm(sample.text));
      }
      for (const line of [field(input!).description!, field(select!).enumNames![1]!]) {
        expect(rawHostile(line), sample.name).toEqual([]);
        expect(line, sample.name).toContain(visibleForm(sample.text));
      }
      expect(field(select!).enum).toEqual(['one', text]);
    }
  });
});
