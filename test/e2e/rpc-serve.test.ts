import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it, onTestFinished } from 'vitest';
import { BIN, sandbox } from './harness.js';
import { scaledMs } from '@airlock/kernel/testing';

interface Message {
  id?: string | number | null;
  method?: string;
  params?: any;
  result?: any;
  error?: { code: number; message: string };
}

/** The real `airlock serve --stdio` in a sandbox, and a JSON-lines client for it. */
function serve(s: ReturnType<typeof sandbox>, args: string[] = [], o: { read?: boolean; model?: string } = {}) {
  const env = { ...process.env, HOME: s.home, XDG_CONFIG_HOME: `${s.home}/.config`, NO_COLOR: '1' };
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [BIN, ...args, 'serve', '--stdio', ...(o.model === undefined ? [] : ['--model', o.model])], { cwd: s.project, env, stdio: ['pipe', 'pipe', 'pipe'] });
  onTestFinished(() => void child.kill('SIGKILL'));
  const received: Message[] = [];
  const waiters = new Set<() => void>();
  let rest = '';
  let stderr = '';
  const onData = (chunk: Buffer): void => {
    const lines = (rest + chunk.toString('utf8')).split('\n');
    rest = lines.pop()!;
    for (const line of lines) received.push(JSON.parse(line) as Message);
    for (const w of [...waiters]) w();
  };
  const startReading = (): void => void child.stdout.on('data', onData);
  if (o.read !== false) startReading();
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const waitFor = (match: (m: Message) => boolean, timeoutMs = 15_000): Promise<Message> =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        const found = received.find(match);
        if (!found) return;
        waiters.delete(check);
        clearTimeout(timer);
        resolve(found);
      };
      const timer = setTimeout(() => (waiters.delete(check), reject(new Error(`no answer in time; got ${JSON.stringify(received).slice(0, 1000)}; stderr ${stderr}`))), timeoutMs);
      waiters.add(check);
      check();
    });
  return {
    child,
    received,
    exited,
    startReading,
    stderr: () => stderr,
    send: (method: string, params: unknown, id: string | number) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`),
    request(method: string, params: unknown, id: string | number) {
      this.send(method, params, id);
      return waitFor((m) => m.id === id && m.method === undefined);
    },
    waitFor,
  };
}

const text = (result: { content: { type: string; text?: string }[] }): string => result.content.map((c) => c.text ?? '').join('');

describe('airlock serve --stdio (the real binary)', () => {
  it('lists, calls, denies, refuses bad lines and keeps answering; end of input exits 0', async () => {
    const s = sandbox();
    s.write('project/notes.txt', 'hello from the project\n');
    s.write('project/.env', 'API_KEY=sk-live-123456\n');
    s.write('home/.config/airlock/settings.json', { permissions: { deny: ['fs.read(**/.env)'] } });
    const c = serve(s);
    const list = await c.request('tools/list', { provider: 'anthropic' }, 1);
    expect(list.result.enabled).toEqual(expect.arrayContaining(['read', 'bash', 'write']));
    expect(list.result.providerTools.find((t: any) => t.name === 'read').input_schema.type).toBe('object');
    c.child.stdin.write('this is not json\n');
    const parse = await c.waitFor((m) => m.error?.code === -32700);
    expect(parse.id).toBeNull();
    const read = await c.request('tools/call', { name: 'read', arguments: { path: 'notes.txt' } }, 2);
    expect(read.result).toMatchObject({ outcome: 'ok', isError: false });
    expect(text(read.result)).toBe('hello from the project\n');
    const denied = await c.request('tools/call', { name: 'read', arguments: { path: '.env' } }, 3);
    expect(denied.result).toMatchObject({ outcome: 'denied', isError: true });
    const invalid = await c.request('tools/call', { name: 'write', arguments: { path: 'x.txt' } }, 4);
    expect(invalid.result).toMatchObject({ outcome: 'invalid', isError: true });
    expect((await c.request('no/such', {}, 5)).error!.code).toBe(-32601);
    c.child.stdin.end();
    expect(await c.exited).toBe(0);
    expect(JSON.stringify(c.received)).not.toContain('sk-live-123456');
    // stdout held only protocol messages: every line parsed above.
    expect(c.received).toHaveLength(6);
  });

  it('100 concurrent tools/call requests all get their answers, ids matched; abort stops one by its id', async () => {
    const s = sandbox();
    for (let i = 0; i < 100; i++) s.write(`project/f${i}.txt`, `file ${i}\n`);
    s.write('home/.config/airlock/settings.json', { permissions: { allow: ['bash(sleep *)'] } });
    const c = serve(s);
    c.send('tools/call', { name: 'bash', arguments: { command: 'sleep 30' } }, 'slow');
    c.child.stdin.write(Array.from({ length: 100 }, (_, i) => `${JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'read', arguments: { path: `f${i}.txt` } } })}\n`).join(''));
    const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => c.waitFor((m) => m.id === i)));
    answers.forEach((a, i) => expect(text(a.result)).toBe(`file ${i}\n`));
    expect((await c.request('abort', { id: 'slow' }, 'stop')).result).toEqual({ aborted: 1 });
    expect((await c.waitFor((m) => m.id === 'slow')).result.outcome).toBe('aborted');
    c.child.stdin.end();
    expect(await c.exited).toBe(0);
  });

  it('without --stdio it says which transport to ask for (exit 2); --help describes it', async () => {
    const s = sandbox();
    const bare = await s.airlock(['serve']);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain('airlock serve needs a transport: --stdio');
    expect(bare.stdout).toBe('');
    const help = await s.airlock(['serve', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/Usage: airlock serve[\s\S]*--stdio[\s\S]*--dialog-timeout-ms/);
  });

  it('SIGTERM lets a running call finish and answer, then exits 0; a second one aborts what runs', async () => {
    const s = sandbox();
    s.write('home/.config/airlock/settings.json', { permissions: { allow: ['bash(sleep *)'] } });
    const c = serve(s);
    await c.request('tools/list', {}, 0); // up and answering
    c.send('tools/call', { name: 'bash', arguments: { command: 'sleep 0.5; echo finished' } }, 'a');
    await new Promise((r) => setTimeout(r, 100));
    c.child.kill('SIGTERM');
    const answer = await c.waitFor((m) => m.id === 'a');
    expect(answer.result.outcome).toBe('ok');
    expect(text(answer.result)).toContain('finished');
    expect(await c.exited).toBe(0);

    const again = serve(s);
    await again.request('tools/list', {}, 0);
    again.send('tools/call', { name: 'bash', arguments: { command: 'sleep 30' } }, 'b');
    await new Promise((r) => setTimeout(r, 200));
    const started = Date.now();
    again.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 100));
    again.child.kill('SIGTERM');
    expect((await again.waitFor((m) => m.id === 'b')).result.outcome).toBe('aborted');
    expect(await again.exited).toBe(0);
    expect(Date.now() - started).toBeLessThan(scaledMs(10_000));
  });

  it('a client that does not read: the server stops reading requests and its memory stays bounded', async () => {
    const s = sandbox();
    const c = serve(s, [], { read: false });
    const line = `${JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'tools/list', params: {} })}\n`;
    // Each answer is ~10 KB; 5,000 of them would be ~50 MB held in the server if it kept reading.
    const count = 5000;
    let written = 0;
    /** Writes until the pipe pushes back; every write counts (a refused one is still queued). */
    const offer = (): void => {
      while (written < count) if (!c.child.stdin.write(line.replace('"id":0', `"id":${written++}`))) return;
    };
    offer();
    const rssOf = (): number => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${c.child.pid}/status`, 'utf8'))![1]) * 1024;
    // Keep offering requests for a while: the pipe stays full because the server stopped reading.
    const deadline = Date.now() + 3000;
    let peak = 0;
    while (Date.now() < deadline && written < count) {
      await new Promise((r) => setTimeout(r, 100));
      peak = Math.max(peak, rssOf());
      if (c.child.stdin.writableLength === 0) offer();
    }
    expect(written).toBeLessThan(count); // the writes blocked: the server was not reading
    expect(peak).toBeLessThan(200 * 1024 * 1024);
    c.startReading();
    await c.waitFor(() => c.received.length >= written, 30_000);
    c.child.stdin.end();
    expect(await c.exited).toBe(0);
    expect(new Set(c.received.map((m) => m.id)).size).toBe(written);
  });
  it('agent/prompt with --model scripted:FILE: the loop runs on the server, events stream, a denied read stays private', async () => {
    const s = sandbox();
    s.write('project/notes.txt', 'hello from the project\n');
    s.write('project/.env', 'API_KEY=sk-live-123456\n');
    s.write('home/.config/airlock/settings.json', { permissions: { deny: ['fs.read(**/.env)'] } });
    s.write(
      'project/play.jsonl',
      [
        JSON.stringify({ content: [{ type: 'toolCall', name: 'read', arguments: { path: 'notes.txt' } }, { type: 'toolCall', name: 'read', arguments: { path: '.env' } }] }),
        JSON.stringify('notes.txt says hello; .env is private.'),
      ].join('\n'),
    );
    const c = serve(s, [], { model: 'scripted:play.jsonl' });
    const answer = await c.request('agent/prompt', { prompt: 'read both' }, 'a1');
    expect(answer.result.status).toBe('done');
    expect(answer.result.finalMessage.content[0].text).toBe('notes.txt says hello; .env is private.');
    const outcomes = answer.result.messages.filter((m: any) => m.role === 'toolResult').map((m: any) => m.outcome);
    expect(outcomes).toEqual(['ok', 'denied']);
    const events = c.received.filter((m) => m.method === 'agent/event' && m.params.requestId === 'a1').map((m) => m.params.event.type);
    expect(events[0]).toBe('agent_start');
    expect(events).toContain('tool_execution_end');
    expect(JSON.stringify(c.received)).not.toContain('sk-live-123456');
    // A client may not name a script of its own.
    const refused = await c.request('agent/prompt', { prompt: 'x', model: 'scripted:.env' }, 'a2');
    expect(refused.error?.code).toBe(-32602);
    expect(JSON.stringify(c.received)).not.toContain('sk-live-123456');
    c.child.stdin.end();
    expect(await c.exited).toBe(0);
  });
});
