import type { AskRequest } from '@airlock/contract';
import { describe, expect, it } from 'vitest';
import { createAskUI } from '../../src/ui/ask.js';
import { DialogQueue } from '../../src/ui/dialog-queue.js';
import { fakeBackend, flush } from './fake-backend.js';

/** The one ask path, with a transport whose answers a test gives by hand. */
function setup(interactive = true) {
  const backend = fakeBackend();
  const shown: AskRequest[] = [];
  let n = 0;
  const ui = createAskUI(
    {
      interactive,
      nobody: 'nobody in this test',
      show: (request, context) => {
        shown.push(request);
        return backend.show<unknown>(`ask ${n++}`)(context);
      },
    },
    { queue: new DialogQueue() },
  );
  return { ui, backend, shown };
}

const DEPLOY: AskRequest = {
  kind: 'choice',
  title: 'Deploy where?',
  choices: [
    { id: 'staging', label: 'Staging' },
    { id: 'prod', label: 'Production' },
  ],
};

describe('createAskUI: one ask, one answer, whatever the transport', () => {
  it('a choice is answered by its id; the transport is shown the ask as made', async () => {
    const { ui, backend, shown } = setup();
    const answer = ui.ask(DEPLOY);
    await flush();
    backend.current().answer({ id: 'prod' });
    expect(await answer).toEqual({ id: 'prod' });
    expect(shown).toEqual([DEPLOY]);
  });

  it('a confirm is shown with its yes/no choices filled in, and answered by one of those ids', async () => {
    const { ui, backend, shown } = setup();
    const answer = ui.ask({ kind: 'confirm', title: 'Trust it?' });
    await flush();
    backend.current().answer({ id: 'yes' });
    expect(await answer).toEqual({ id: 'yes' });
    expect(shown[0]!.choices).toEqual([
      { id: 'yes', label: 'Yes' },
      { id: 'no', label: 'No' },
    ]);
  });

  it('what is not an answer to this ask counts as no, and says what came and what the choices were', async () => {
    const { ui, backend } = setup();
    const cases: [AskRequest, unknown, string][] = [
      [DEPLOY, { id: 'Production' }, 'got "Production"; the choices are "staging", "prod"'],
      [DEPLOY, { text: 'prod' }, 'got text ("prod") for a question with choices; expected {"id": "staging" or "prod"} or {"noAnswer": {"kind": …}}'],
      [DEPLOY, { value: 'prod' }, 'got {"value":"prod"}, which is not an answer; expected {"id": "staging" or "prod"} or {"noAnswer": {"kind": …}}'],
      [DEPLOY, { id: 'prod', text: 'also' }, 'which is not an answer'],
      [{ kind: 'text', title: 'Why?' }, { id: 'yes' }, 'got the id "yes" for a question that asks for text'],
      [DEPLOY, undefined, 'got undefined, which is not an answer'],
    ];
    for (const [request, came, detail] of cases) {
      const answer = ui.ask(request);
      await flush();
      backend.current().answer(came);
      const got = await answer;
      expect(got, JSON.stringify(came)).toMatchObject({ noAnswer: { kind: 'invalid' } });
      expect((got as { noAnswer: { detail: string } }).noAnswer.detail).toContain(detail);
    }
  });

  it("a transport's reason for no answer comes through as it is (a long detail is cut)", async () => {
    const { ui, backend } = setup();
    const declined = ui.ask(DEPLOY);
    await flush();
    backend.current().answer({ noAnswer: { kind: 'declined' } });
    expect(await declined).toEqual({ noAnswer: { kind: 'declined' } });
    const long = ui.ask(DEPLOY);
    await flush();
    backend.current().answer({ noAnswer: { kind: 'unavailable', detail: 'x'.repeat(1000) } });
    expect((await long as { noAnswer: { detail: string } }).noAnswer.detail).toHaveLength(301);
  });

  it('nobody to ask: unavailable at once, in the transport\'s words, and nothing is shown', async () => {
    const { ui, shown } = setup(false);
    expect(ui.interactive).toBe(false);
    expect(await ui.ask(DEPLOY)).toEqual({ noAnswer: { kind: 'unavailable', detail: 'nobody in this test' } });
    expect(shown).toEqual([]);
  });

  it('a malformed ask rejects with a TypeError naming the problem, before anything is shown', async () => {
    const { ui, shown } = setup();
    const malformed: [unknown, RegExp][] = [
      [{ kind: 'choice', title: 'Pick', choices: [] }, /a choice ask needs at least one choice/],
      [{ kind: 'choice', title: 'Pick' }, /a choice ask needs at least one choice/],
      [{ kind: 'choice', title: 'Pick', choices: [{ id: 'a', label: 'A' }, { id: 'a', label: 'Also A' }] }, /the choice id "a" appears twice/],
      [{ kind: 'confirm', title: 'Sure?', choices: [{ id: 'ok', label: 'OK' }, { id: 'no', label: 'No' }] }, /exactly the ids "yes" and "no"/],
      [{ kind: 'text', title: 'Why?', choices: [{ id: 'a', label: 'A' }] }, /a text ask takes no choices/],
      [{ kind: 'choice', title: 'Pick', choices: [{ id: '', label: 'empty' }] }, /choices\[0\]\.id/],
      [{ kind: 'select', title: 'Pick' }, /kind/],
    ];
    for (const [request, problem] of malformed) {
      await expect(ui.ask(request as AskRequest), JSON.stringify(request)).rejects.toThrow(TypeError);
      await expect(ui.ask(request as AskRequest)).rejects.toThrow(problem);
    }
    expect(shown).toEqual([]);
  });

  it('asks made at once are shown one at a time, in order, each with its own answer', async () => {
    const { ui, backend } = setup();
    const first = ui.ask(DEPLOY);
    const second = ui.ask({ kind: 'text', title: 'Why?' });
    await flush();
    expect(backend.events).toEqual(['start ask 0']);
    backend.current().answer({ id: 'staging' });
    await flush();
    backend.current().answer({ text: 'because' });
    expect(await Promise.all([first, second])).toEqual([{ id: 'staging' }, { text: 'because' }]);
    expect(backend.maxShowing).toBe(1);
  });
});
