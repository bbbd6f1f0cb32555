import { NO_UI } from '@airlock/kernel';
import { PassThrough } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { chooseUI, createRpcUI, createTtyUI, DialogQueue, queueFor, type RpcTransport } from '../../src/ui/index.js';
import { flush } from './fake-backend.js';

function transport() {
  const sent: object[] = [];
  const rpc: RpcTransport = { send: (m) => void sent.push(m), onMessage: () => () => {} };
  return { rpc, sent };
}

describe('chooseUI', () => {
  it('picks the RPC bridge when a client is connected, even with a terminal', async () => {
    const { rpc, sent } = transport();
    const ui = chooseUI({ isTTY: true, rpc, rpcOptions: { log: { warn: vi.fn() }, queue: new DialogQueue() } });
    expect(ui.interactive).toBe(true);
    const controller = new AbortController();
    const answer = ui.confirm('Over RPC?', undefined, { signal: controller.signal });
    await flush();
    expect(sent).toEqual([expect.objectContaining({ type: 'ui_request', method: 'confirm', title: 'Over RPC?' })]);
    controller.abort();
    expect(await answer).toBe(false);
  });

  it('picks the terminal when there is one and no client', async () => {
    const input = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => input });
    const output = new PassThrough();
    const ui = chooseUI({ isTTY: true, tty: { input, output, queue: new DialogQueue() } });
    expect(ui.interactive).toBe(true);
    const answer = ui.confirm('In the terminal?');
    // The prompt library loads on the first dialog, so wait for the prompt to be drawn.
    let drawn = '';
    await vi.waitFor(() => {
      drawn += String(output.read() ?? '');
      expect(drawn).toContain('In the terminal?');
    });
    input.write('y\r');
    expect(await answer).toBe(true);
  });

  it("falls back to the kernel's NO_UI, which answers no to everything", async () => {
    const ui = chooseUI({ isTTY: false });
    expect(ui).toBe(NO_UI);
    expect(ui.interactive).toBe(false);
    expect(await ui.confirm('Anyone?')).toBe(false);
  });

  it('exports the factories and the queue', () => {
    expect(typeof createTtyUI).toBe('function');
    expect(typeof createRpcUI).toBe('function');
    expect(queueFor({})).toBeInstanceOf(DialogQueue);
  });
});
