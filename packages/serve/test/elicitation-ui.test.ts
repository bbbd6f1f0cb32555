import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ElicitRequestSchema, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
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
