import { afterEach, describe, expect, it, vi } from 'vitest';
import { DialogQueue } from '../../src/ui/dialog-queue.js';
import { createRpcUI, type RpcTransport, type UIRequestMessage } from '../../src/ui/rpc.js';
import { around, HOSTILE_SAMPLES, rawHostile, visibleForm } from '@airlock/kernel/testing';
import { flush } from './fake-backend.js';

/** An in-memory transport: records what the host sends, lets the test play the client. */
function memoryTransport() {
  const sent: Record<string, unknown>[] = [];
  const handlers = new Set<(message: unknown) => void>();
  const transport: RpcTransport = {
    send: (message) => void sent.push(structuredClone(message) as Record<string, unknown>),
    onMessage(handler) {
      handlers.add(handler);
      return () => void handlers.delete(handler);
    },
  };
  return {
    transport,
    sent,
    /** The client speaks. */
    reply(message: unknown) {
      for (const handler of [...handlers]) handler(message);
    },
    get listeners() {
      return handlers.size;
    },
    requests: () => sent.filter((m) => m['type'] === 'ui_request') as unknown as UIRequestMessage[],
    lastRequest(): UIRequestMessage {
      const request = this.requests().at(-1);
      if (!request) throw new Error('no ui_request sent');
      return request;
    },
  };
}

function setup() {
  const wire = memoryTransport();
  const warn = vi.fn();
  // A private queue per test: the default is shared per transport, and each test has its own anyway.
  const ui = createRpcUI(wire.transport, { log: { warn }, queue: new DialogQueue() });
  return { wire, warn, ui };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('createRpcUI: round trips', () => {
  it('is interactive', () => {
    expect(setup().ui.interactive).toBe(true);
  });

  it('confirm sends a ui_request and resolves on {confirmed}', async () => {
    const { wire, ui } = setup();
    const answer = ui.confirm('Delete build?', 'rm -rf build');
    await flush();
    const request = wire.lastRequest();
    expect(request).toEqual({ type: 'ui_request', id: expect.any(String), method: 'confirm', title: 'Delete build?', message: 'rm -rf build' });
    wire.reply({ type: 'ui_response', id: request.id, confirmed: true });
    expect(await answer).toBe(true);
    expect(wire.listeners).toBe(0);
  });

  it('confirm also takes a boolean value, and answers false to {confirmed: false}', async () => {
    const { wire, ui } = setup();
    const first = ui.confirm('One?');
    await flush();
    wire.reply({ type: 'ui_response', id: wire.lastRequest().id, value: true });
    expect(await first).toBe(true);
    const second = ui.confirm('Two?');
    await flush();
    wire.reply({ type: 'ui_response', id: wire.lastRequest().id, confirmed: false });
    expect(await second).toBe(false);
  });

  it('select sends the choices and resolves with the chosen one', async () => {
    const { wire, ui } = setup();
    const answer = ui.select('Branch?', ['main', 'dev']);
    await flush();
    const request = wire.lastRequest();
    expect(request).toEqual({ type: 'ui_request', id: request.id, method: 'select', title: 'Branch?', choices: ['main', 'dev'] });
    wire.reply({ type: 'ui_response', id: request.id, value: 'dev' });
    expect(await answer).toBe('dev');
  });

  it('input sends the placeholder and resolves with the text, the empty string included', async () => {
    const { wire, ui } = setup();
    const answer = ui.input('Name?', { placeholder: 'e.g. Ada' });
    await flush();
    const request = wire.lastRequest();
    expect(request).toEqual({ type: 'ui_request', id: request.id, method: 'input', title: 'Name?', placeholder: 'e.g. Ada' });
    wire.reply({ type: 'ui_response', id: request.id, value: '' });
    expect(await answer).toBe('');
  });

  it('{cancelled: true} answers no: false for confirm, undefined for select and input', async () => {
    const { wire, ui } = setup();
    const answers = [ui.confirm('A?'), ui.select('B?', ['x']), ui.input('C?')];
    for (let i = 0; i < 3; i++) {
      await flush();
      wire.reply({ type: 'ui_response', id: wire.lastRequest().id, cancelled: true, value: 'x', confirmed: true });
    }
    expect(await Promise.all(answers)).toEqual([false, undefined, undefined]);
  });

  it('a cancelled answer says why: the reason a client gives (declined, invalid …), else "cancelled"; an unknown reason is a cancel', async () => {
    const { wire, ui } = setup();
    const seen: unknown[] = [];
    const bodies = [{ reason: 'declined' }, { reason: 'invalid', detail: 'got "Maybe"' }, {}, { reason: 'yes-please' }];
    for (const body of bodies) {
      const answer = ui.select('B?', ['x'], { onNoAnswer: (why) => seen.push(why) });
      await flush();
      wire.reply({ type: 'ui_response', id: wire.lastRequest().id, cancelled: true, ...body });
      expect(await answer).toBeUndefined();
    }
    expect(seen).toEqual([{ kind: 'declined' }, { kind: 'invalid', detail: 'got "Maybe"' }, { kind: 'cancelled' }, { kind: 'cancelled' }]);
    // An answer is not a no-answer: nothing reported.
    const chosen = ui.select('B?', ['x'], { onNoAnswer: (why) => seen.push(why) });
    await flush();
    wire.reply({ type: 'ui_response', id: wire.lastRequest().id, value: 'x' });
    expect(await chosen).toBe('x');
    expect(seen).toHaveLength(4);
  });

  it('handles a client that answers inside send()', async () => {
    const handlers: ((m: unknown) => void)[] = [];
    const transport: RpcTransport = {
      send: (m) => {
        const request = m as UIRequestMessage;
        if (request.type === 'ui_request') for (const h of [...handlers]) h({ type: 'ui_response', id: request.id, confirmed: true });
      },
      onMessage: (h) => {
        handlers.push(h);
        return () => void handlers.splice(handlers.indexOf(h), 1);
      },
    };
    const ui = createRpcUI(transport, { queue: new DialogQueue(), log: { warn: vi.fn() } });
    expect(await ui.confirm('Sync?')).toBe(true);
    expect(handlers).toHaveLength(0);
  });

  it('select with no choices answers undefined without asking', async () => {
    const { wire, ui } = setup();
    expect(await ui.select('Nothing?', [])).toBeUndefined();
    expect(wire.sent).toEqual([]);
  });
});

describe('createRpcUI: one dialog at a time', () => {
  it('sends the next request only after the previous one was answered', async () => {
    const { wire, ui } = setup();
    const a = ui.confirm('A?');
    const b = ui.input('B?');
    await flush();
    expect(wire.requests().map((r) => r.title)).toEqual(['A?']);
    // The client answers B's id before B was even asked: that id is unknown, so nothing happens.
    wire.reply({ type: 'ui_response', id: 'not-yet', value: 'early' });
    wire.reply({ type: 'ui_response', id: wire.lastRequest().id, confirmed: true });
    await flush();
    expect(wire.requests().map((r) => r.title)).toEqual(['A?', 'B?']);
    wire.reply({ type: 'ui_response', id: wire.lastRequest().id, value: 'b' });
    expect(await Promise.all([a, b])).toEqual([true, 'b']);
  });

  it('shares one queue between every UI on the same transport by default', async () => {
    const wire = memoryTransport();
    const first = createRpcUI(wire.transport, { log: { warn: vi.fn() } });
    const second = createRpcUI(wire.transport, { log: { warn: vi.fn() } });
    const a = first.confirm('A?');
    const b = second.confirm('B?');
    await flush();
    expect(wire.requests()).toHaveLength(1);
    wire.reply({ type: 'ui_response', id: wire.lastRequest().id, confirmed: false });
    await flush();
    expect(wire.requests()).toHaveLength(2);
    wire.reply({ type: 'ui_response', id: wire.lastRequest().id, confirmed: true });
    expect(await Promise.all([a, b])).toEqual([false, true]);
  });
});

describe('createRpcUI: cancel on timeout and abort', () => {
  it('a timeout while showing sends ui_cancel and answers false; the request carried the time left', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const { wire, ui } = setup();
    const answer = ui.confirm('Quick?', undefined, { timeoutMs: 3000 });
    await flush();
    const { id, timeoutMs } = wire.lastRequest();
    expect(timeoutMs).toBe(3000);
    await vi.advanceTimersByTimeAsync(3000);
    expect(await answer).toBe(false);
    expect(wire.sent.at(-1)).toEqual({ type: 'ui_cancel', id });
    expect(wire.listeners).toBe(0);
  });

  it('the timeoutMs sent is what is left after waiting in the queue', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const { wire, ui } = setup();
    const a = ui.confirm('First?');
    const b = ui.select('Second?', ['x', 'y'], { timeoutMs: 10_000 });
    await flush();
    await vi.advanceTimersByTimeAsync(4000);
    wire.reply({ type: 'ui_response', id: wire.lastRequest().id, confirmed: true });
    await flush();
    expect(wire.lastRequest()).toMatchObject({ title: 'Second?', timeoutMs: 6000 });
    wire.reply({ type: 'ui_response', id: wire.lastRequest().id, value: 'y' });
    expect(await Promise.all([a, b])).toEqual([true, 'y']);
  });

  it('an abort while showing sends ui_cancel and answers undefined; a late answer is ignored', async () => {
    const { wire, ui, warn } = setup();
    const controller = new AbortController();
    const answer = ui.select('Pick', ['a', 'b'], { signal: controller.signal });
    await flush();
    const { id } = wire.lastRequest();
    controller.abort();
    expect(await answer).toBeUndefined();
    expect(wire.sent.at(-1)).toEqual({ type: 'ui_cancel', id });
    wire.reply({ type: 'ui_response', id, value: 'a' });
    expect(warn).not.toHaveBeenCalled();
  });

  it('an abort while waiting sends nothing at all: the client never saw that dialog', async () => {
    const { wire, ui } = setup();
    const controller = new AbortController();
    const a = ui.confirm('A?');
    const b = ui.input('B?', { signal: controller.signal });
    await flush();
    controller.abort();
    expect(await b).toBeUndefined();
    wire.reply({ type: 'ui_response', id: wire.lastRequest().id, confirmed: true });
    expect(await a).toBe(true);
    await flush();
    expect(wire.sent.map((m) => m['type'])).toEqual(['ui_request']);
  });
});

describe('createRpcUI: what the client sends that is not an answer', () => {
  it('ignores responses with unknown ids and messages of other types, silently', async () => {
    const { wire, ui, warn } = setup();
    const answer = ui.confirm('A?');
    await flush();
    wire.reply({ type: 'ui_response', id: 'someone-else', confirmed: true });
    wire.reply({ type: 'tool_call', id: wire.lastRequest().id });
    wire.reply('a string');
    wire.reply(null);
    wire.reply([1, 2]);
    expect(await Promise.race([answer, flush().then(() => 'still waiting')])).toBe('still waiting');
    expect(warn).not.toHaveBeenCalled();
    wire.reply({ type: 'ui_response', id: wire.lastRequest().id, confirmed: true });
    expect(await answer).toBe(true);
  });

  it('ignores malformed responses with a log line and keeps waiting for a good one', async () => {
    const { wire, ui, warn } = setup();
    const confirm = ui.confirm('A?');
    await flush();
    const confirmId = wire.lastRequest().id;
    wire.reply({ type: 'ui_response', id: confirmId, confirmed: 'yes' });
    wire.reply({ type: 'ui_response', id: confirmId });
    wire.reply({ type: 'ui_response', id: confirmId, cancelled: 'please' });
    wire.reply({ type: 'ui_response', id: 42, confirmed: true });
    expect(warn).toHaveBeenCalledTimes(4);
    expect(warn.mock.calls.map((c) => c[0])).toEqual([
      expect.stringMatching(/malformed ui_response to confirm .*confirmed must be a boolean/),
      expect.stringMatching(/malformed ui_response to confirm .*confirmed must be a boolean/),
      expect.stringMatching(/cancelled must be a boolean/),
      expect.stringMatching(/without a string id/),
    ]);
    wire.reply({ type: 'ui_response', id: confirmId, confirmed: true });
    expect(await confirm).toBe(true);

    warn.mockClear();
    const select = ui.select('B?', ['x', 'y']);
    await flush();
    const selectId = wire.lastRequest().id;
    wire.reply({ type: 'ui_response', id: selectId, value: 'z' }); // not a choice
    wire.reply({ type: 'ui_response', id: selectId, value: 1 });
    expect(warn.mock.calls.map((c) => c[0])).toEqual([
      expect.stringMatching(/value must be one of the choices/),
      expect.stringMatching(/value must be one of the choices/),
    ]);
    wire.reply({ type: 'ui_response', id: selectId, value: 'y' });
    expect(await select).toBe('y');

    warn.mockClear();
    const input = ui.input('C?');
    await flush();
    wire.reply({ type: 'ui_response', id: wire.lastRequest().id, value: { text: 'hi' } });
    expect(warn).toHaveBeenCalledWith(expect.stringMatching(/value must be a string/));
    wire.reply({ type: 'ui_response', id: wire.lastRequest().id, value: 'hi' });
    expect(await input).toBe('hi');
  });

  it('a transport that cannot send answers no, logs, and does not block the next dialog', async () => {
    let fail = true;
    const wire = memoryTransport();
    const transport: RpcTransport = {
      send: (m) => {
        if (fail) throw new Error('EPIPE');
        wire.transport.send(m);
      },
      onMessage: wire.transport.onMessage,
    };
    const warn = vi.fn();
    const ui = createRpcUI(transport, { queue: new DialogQueue(), log: { warn } });
    expect(await ui.confirm('A?')).toBe(false);
    expect(warn).toHaveBeenCalledWith(expect.stringMatching(/could not send ui_request .*EPIPE/));
    expect(wire.listeners).toBe(0);
    fail = false;
    const next = ui.input('B?');
    await flush();
    wire.reply({ type: 'ui_response', id: wire.lastRequest().id, value: 'ok' });
    expect(await next).toBe('ok');
  });
});

describe('createRpcUI: the texts a client shows a person', () => {
  it('title, message and placeholder carry every hostile character as a visible escape; choices go verbatim', async () => {
    for (const sample of HOSTILE_SAMPLES) {
      const { wire, ui } = setup();
      const text = around(sample);
      const what = `${sample.name}`;
      void ui.confirm(`Run ${text}?`, `It says ${text}`);
      await flush();
      const confirm = wire.lastRequest();
      for (const field of [confirm.title, confirm.message!]) {
        expect(rawHostile(field, { lines: true }), what).toEqual([]);
        if (sample.text !== '\n') expect(field, what).toContain(visibleForm(sample.text));
      }
      wire.reply({ type: 'ui_response', id: confirm.id, confirmed: false });
      void ui.input('Say it', { placeholder: text });
      await flush();
      const input = wire.lastRequest();
      expect(rawHostile(input.placeholder!), what).toEqual([]);
      expect(input.placeholder, what).toContain(visibleForm(sample.text));
      wire.reply({ type: 'ui_response', id: input.id, cancelled: true });
      const answer = ui.select('Pick', ['one', text]);
      await flush();
      const select = wire.lastRequest();
      expect(select.choices).toEqual(['one', text]);
      wire.reply({ type: 'ui_response', id: select.id, value: text });
      expect(await answer).toBe(text);
    }
  });
});
