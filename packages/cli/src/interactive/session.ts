import { Agent, transcriptListener, type AgentEvent, type AgentOptions, type AgentRunResult, type Transcript } from '@airlock/agent';
import { displayText } from '@airlock/toolkit/display';
import { progress } from '../commands/run-progress.js';
import { EXIT, type IO } from '../io.js';
import type { LineEditor } from './line-editor.js';

export interface InteractiveOptions {
  editor: LineEditor;
  agent: AgentOptions;
  /** Every message of every turn is appended here (redacted), as in print mode. */
  transcript: Transcript;
  /** `--model` as given, for the greeting. */
  modelSpec: string;
  io: IO;
  /** A second Ctrl-C within this long of the first leaves at once. Default 2000 ms. */
  doubleInterruptMs?: number;
}

const HELP = [
  'Type a message and press Enter to send it to the model.',
  'While the agent works, a message you send is delivered after the tool calls running now have finished (it steers the current run).',
  'Ctrl-C aborts the current turn (every pending tool call gets an "aborted" result); Ctrl-C again, or Ctrl-D at an empty prompt, leaves.',
  'At an approval prompt, Ctrl-C answers No.',
  'Commands: /help (this), /exit (leave).',
].join('\n');

/**
 * `airlock run` on a terminal without `-p`: a conversation, turn after turn, through one `Agent`.
 * The assistant's text streams to stdout as it arrives; each call's outcome and a running
 * command's output go to stderr, above the prompt line. What is typed while the agent works is
 * *steering* (Pi's default for Enter while streaming): it waits until the whole batch has run and
 * goes to the model before its next request, so it never skips or cuts short a call that started.
 * Resolves with the exit code (0 when the person leaves).
 */
export function runInteractive(options: InteractiveOptions): Promise<number> {
  const { editor, io, transcript } = options;
  const agent = new Agent(options.agent);
  const out = (text: string): void => editor.print(text, (t) => void io.stdout.write(t));
  // Airlock's own lines (outcomes, notices, a command's output) never continue a streamed answer's line.
  const err = (text: string): void => editor.print(text, (t) => void io.stderr.write(t), { freshLine: true });
  const say = (text: string): void => err(`airlock: ${text}\n`);
  agent.subscribe(transcriptListener(transcript));
  agent.subscribe(progress(err, true));
  agent.subscribe(streamedText(out));
  const doubleMs = options.doubleInterruptMs ?? 2000;

  return new Promise<number>((resolve) => {
    let running: Promise<AgentRunResult> | undefined;
    let leaving = false;
    let done = false;
    let lastInterrupt = 0;

    const leave = (code: number): void => {
      if (done) return;
      leaving = true;
      if (running !== undefined) {
        // Let the aborted run record its results first: the transcript must have no holes.
        agent.abort(new Error('the session is ending'));
        return;
      }
      done = true;
      process.off('SIGINT', onInterrupt);
      process.off('SIGTERM', onTerminate);
      editor.close();
      say(`transcript ${transcript.path} (continue with airlock run --resume ${transcript.id})`);
      resolve(code);
    };

    const start = (text: string | undefined): void => {
      editor.busy();
      running = agent.prompt(text === undefined ? [] : text);
      void running.then(finished, (error: unknown) => finished({ status: 'failed', reason: String(error) } as AgentRunResult));
    };

    const finished = (result: AgentRunResult): void => {
      running = undefined;
      if (result.reason !== undefined) say(displayText(result.reason, { maxChars: 2000 }));
      const dropped = result.status === 'aborted' ? agent.steering.drain().length + agent.followUps.drain().length : 0;
      if (dropped > 0) say(`${dropped === 1 ? 'the message' : `${dropped} messages`} typed during the aborted turn ${dropped === 1 ? 'was' : 'were'} not sent.`);
      if (leaving) return leave(EXIT.ok);
      // A message typed after the model's last look at the queue starts the next run at once.
      if (agent.steering.size > 0) return start(undefined);
      editor.idle();
    };

    const onInterrupt = (): void => {
      const now = Date.now();
      const again = now - lastInterrupt < doubleMs;
      lastInterrupt = now;
      if (running !== undefined) {
        if (again) {
          say('interrupted twice: leaving now.');
          editor.close();
          process.exit(130);
        }
        say('aborting the current turn (Ctrl-C again to leave)…');
        agent.abort(new Error('interrupted'));
        return;
      }
      if (editor.typed !== '' && !again) {
        editor.clearLine();
        say('line cleared (Ctrl-C again, Ctrl-D or /exit to leave).');
        return;
      }
      leave(EXIT.ok);
    };
    const onTerminate = (): void => leave(EXIT.ok);

    editor.start({
      line(raw) {
        const text = raw.trim();
        if (text === '/exit' || text === '/quit') return leave(EXIT.ok);
        if (text === '/help') {
          err(`${HELP}\n`);
          if (running === undefined) editor.idle();
          return;
        }
        if (text.startsWith('/') && !text.includes(' ') && text.length > 1) {
          say(`unknown command ${displayText(text, { maxChars: 40 })}; the commands are /help and /exit. (To send it as a message, add a word after it.)`);
          if (running === undefined) editor.idle();
          return;
        }
        if (text === '') {
          if (running === undefined) editor.idle();
          return;
        }
        if (running !== undefined) {
          agent.steer(raw);
          say('queued: the model gets this after the tool calls running now have finished.');
          return;
        }
        start(raw);
      },
      interrupt: onInterrupt,
      end: () => leave(EXIT.ok),
    });
    // Outside raw mode (between a dialog and the prompt) Ctrl-C is a signal, not a key.
    process.on('SIGINT', onInterrupt);
    process.on('SIGTERM', onTerminate);

    const resumed = agent.messages.length;
    say(
      `session ${transcript.id} with ${displayText(options.modelSpec, { maxChars: 200 })}${resumed > 0 ? `, resumed with ${resumed} recorded message${resumed === 1 ? '' : 's'}` : ''}. ` +
        'Type a message; /help for help; Ctrl-C aborts a turn, Ctrl-D leaves.',
    );
    editor.idle();
  });
}

/** The assistant's text as it streams, then a line break when a message ends mid-line. */
function streamedText(out: (text: string) => void): (event: AgentEvent) => void {
  let open = false;
  return (event) => {
    if (event.type === 'message_update' && event.delta.type === 'text_delta') {
      out(event.delta.delta);
      open = !event.delta.delta.endsWith('\n');
    } else if (event.type === 'message_end' && event.message.role === 'assistant' && open) {
      out('\n');
      open = false;
    }
  };
}
