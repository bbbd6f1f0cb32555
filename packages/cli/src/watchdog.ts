import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Writable } from 'node:stream';
import type { Host } from '@airlock/host';
import { displayText } from '@airlock/toolkit/display';
import { BASH_NO_STARTUP_FILES } from '@airlock/toolkit/util';

/**
 * The backstop behind `--timeout-ms` (and `execution.timeoutMs`), Ctrl-C and a SIGTERM sent to
 * the process group: each is honoured by code on the main thread (a timer, a signal listener),
 * and none of that runs while the main thread is stuck in synchronous work (a walk, a regular
 * expression, an extension's loop).
 *
 * So a small bash process watches from outside. The main thread tells it, through a pipe, the
 * earliest deadline of the calls running now (the call's limit plus the kernel's grace, by which
 * the kernel itself ends any call when the main thread is free), and beats once a second while a
 * call runs. If the deadline passes and the beats have stopped (waiting for a person's approval
 * is not being stuck), or if Ctrl-C or SIGTERM reaches the process group during a call and the
 * main thread neither ends the call nor beats within a few seconds, the watchdog says why on
 * stderr, kills every process below this one (bwrap's --die-with-parent would take the sandboxed
 * ones anyway) and this one with SIGKILL (exit status 137, as `leaveIfStuck`).
 *
 * Why a process and not a worker thread: a worker costs this process 25–50 ms of CPU to start,
 * on every `airlock call`; bash costs a few, and sees the terminal's Ctrl-C (same process group),
 * which a worker cannot (Node delivers signals to the main thread only). A SIGTERM sent to this
 * process alone is still seen only by the main thread. Without bash there is no watchdog.
 */

/** The kernel's grace after a call's limit (ExecuteOptions.graceMs default): it gives up on a tool that does not stop then. */
const KERNEL_GRACE_MS = 2000;
/** Past the kernel's grace: the kernel's own timer, on a free main thread, always comes first. */
const MARGIN_MS = 1000;
/** Seconds the main thread gets to end a call after Ctrl-C or SIGTERM before the watchdog does. */
export const SIGNAL_GRACE_S = 5;
/** How often the main thread beats while a call runs; the watchdog wants three seconds of silence. */
const BEAT_MS = 1000;

export interface Watchdog {
  /** Watch the calls `host` runs, each limited to `limitMs` (0: not watched). Returns the function that stops watching. */
  watch(host: Host, limitMs: number): () => void;
}

/**
 * The watchdog's program. Messages, one a line: `arm SECONDS WHAT` (the earliest deadline is
 * SECONDS from now), `beat` (the main thread is free), `idle` (no call running). Whole seconds:
 * bash 3's `read -t` takes no fractions, and this is a backstop, not the timer.
 */
const SCRIPT = `
parent=$1 grace=$2
deadline= what= why= signalled= last=0 pending=
fire() {
  printf 'airlock: %s%s Airlock has not answered (its main thread is stuck in synchronous work, where no timer or signal handler can run), so it ends now with exit status 137: the processes it started are killed, and the call gets no result or audit record.\\n' "$what" "$why" >&2
  pids=" $parent " found=1
  while [ "$found" = 1 ]; do
    found=0
    for d in /proc/[0-9]*; do
      p=\${d#/proc/}
      case "$pids" in *" $p "*) continue ;; esac
      stat=; read -r stat < "$d/stat" 2>/dev/null || continue
      set -f; set -- \${stat##*) }; set +f
      case "$pids" in *" $2 "*) pids="$pids$p "; found=1 ;; esac
    done
  done
  for p in $pids; do [ "$p" = "$$" ] || [ "$p" = "$parent" ] || kill -KILL "$p" 2>/dev/null; done
  kill -KILL "$parent" 2>/dev/null
  exit 0
}
interrupted() {
  [ -n "$deadline" ] && [ -z "$signalled" ] || return 0
  signalled=1 deadline=$((SECONDS + grace)) why=" was interrupted (Ctrl-C or SIGTERM) $grace s ago, and"
}
trap interrupted INT TERM
while :; do
  if [ -n "$deadline" ]; then
    [ "$SECONDS" -lt "$deadline" ] || [ $((SECONDS - last)) -lt 3 ] || fire
    # A second at a time: a trap runs at once, but a read goes on to its own timeout.
    IFS= read -r -t 1 part; rc=$?
  else
    IFS= read -r part; rc=$?
  fi
  # A read that times out keeps what it had of a line: the rest comes with the next one.
  line=$pending$part pending=
  if [ "$rc" -gt 128 ]; then pending=$line; continue; fi
  [ "$rc" = 0 ] || exit 0
  case $line in
    beat) last=$SECONDS ;;
    "arm "*) last=$SECONDS; [ -z "$signalled" ] || continue; rest=\${line#arm }; deadline=$((SECONDS + \${rest%% *})) what=\${rest#* } why=" passed its time limit, and" ;;
    idle) deadline= what= why= signalled= ;;
  esac
done
`;

let shared: Watchdog | undefined;

/**
 * The process's watchdog, started on first use (the real binary only: in-process tests have none).
 *
 * @example
 * const stop = processWatchdog().watch(host, 10_000);
 */
export function processWatchdog(): Watchdog {
  shared ??= startWatchdog();
  return shared;
}

/**
 * The bash process, started with the first call (a command that runs none starts none). The
 * first call's start event comes before anything of that call runs, so it is never too late.
 */
function startBash(): ChildProcessByStdio<Writable, null, null> | undefined {
  let child: ChildProcessByStdio<Writable, null, null> | undefined;
  try {
    child = spawn('bash', [...BASH_NO_STARTUP_FILES, '-c', SCRIPT, 'airlock-watchdog', String(process.pid), String(SIGNAL_GRACE_S)], { stdio: ['pipe', 'ignore', 'inherit'] });
  } catch {
    return undefined;
  }
  // No bash (or it cannot start): no watchdog; the calls' own limits still hold while the main thread is free.
  child.on('error', () => undefined);
  child.stdin.on('error', () => undefined);
  // Neither keeps this process alive; when it ends, the pipe closes and the watchdog leaves.
  child.unref();
  (child.stdin as unknown as { unref?: () => void }).unref?.();
  return child;
}

function startWatchdog(): Watchdog {
  let child: ChildProcessByStdio<Writable, null, null> | undefined | null;

  const running = new Map<string, { due: number; what: string }>();
  let told = '';
  let beating: NodeJS.Timeout | undefined;
  const send = (line: string): void => {
    if (child === undefined) child = startBash() ?? null;
    if (child === null || child.exitCode !== null || child.stdin.destroyed) return;
    child.stdin.write(`${line}\n`);
  };
  const tell = (): void => {
    let first: { due: number; what: string } | undefined;
    for (const call of running.values()) if (first === undefined || call.due < first.due) first = call;
    // One second more: bash counts whole seconds from whenever its clock last ticked.
    const line = first === undefined ? 'idle' : `arm ${Math.max(1, Math.ceil((first.due - Date.now()) / 1000)) + 1} ${first.what}`;
    if (first === undefined && beating !== undefined) {
      clearInterval(beating);
      beating = undefined;
    } else if (first !== undefined && beating === undefined) {
      beating = setInterval(() => send('beat'), BEAT_MS).unref();
    }
    if (line === told || (child === undefined && first === undefined)) return;
    told = line;
    send(line);
  };
  let runs = 0;
  return {
    watch(host, limitMs) {
      if (limitMs <= 0) return () => undefined;
      const run = ++runs;
      const mine = new Set<string>();
      const arm = (id: string, name: string): void => {
        const key = `${run}:${id}`;
        mine.add(key);
        // Written by bash straight to stderr: made safe for a terminal here (model-chosen names).
        const what = `the call ${displayText(name, { maxChars: 80 })} (${displayText(id, { maxChars: 80 })})`;
        running.set(key, { due: Date.now() + limitMs + KERNEL_GRACE_MS + MARGIN_MS, what });
        told = ''; // a new deadline, even if the line would read the same
        tell();
      };
      const end = (key: string): void => {
        mine.delete(key);
        if (running.delete(key)) tell();
      };
      const off = host.kernel.onEvent((event) => {
        // From the start (validation and hooks run on this thread too), and again once the call is
        // decided: a person's approval is not the call's running time.
        if (event.type === 'tool_execution_start') arm(event.toolCallId, event.toolName);
        else if (event.type === 'tool_decision' && mine.has(`${run}:${event.toolCallId}`)) arm(event.toolCallId, event.toolName);
        else if (event.type === 'tool_execution_end') end(`${run}:${event.toolCallId}`);
      });
      return () => {
        off();
        for (const key of [...mine]) end(key);
      };
    },
  };
}
