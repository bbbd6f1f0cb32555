#!/usr/bin/env node
// Runs a command on a machine made busy on purpose: N processes that spin, started first and
// given time to raise the load average (which the test config reads once, when the run starts, to
// scale every time limit), then stopped when the command ends. The suite must pass like this.
//
//   node scripts/under-load.mjs 8 pnpm test      (or: pnpm test:loaded)
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';

const [countText, command, ...args] = process.argv.slice(2);
const count = Number(countText);
if (!Number.isInteger(count) || count < 1 || command === undefined) {
  console.error('usage: node scripts/under-load.mjs <busy processes> <command> [args…]   e.g. node scripts/under-load.mjs 8 pnpm test');
  process.exit(2);
}

const busy = Array.from({ length: count }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
const stopBusy = () => busy.forEach((child) => child.kill('SIGKILL'));
process.on('exit', stopBusy);
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(130));

// The one-minute load average climbs towards `count` slowly (about 63% in a minute): wait for
// most of it, at most two minutes, so the run starts with its limits scaled for this load.
const target = count * 0.85;
const started = Date.now();
// On a terminal the count updates in place; in a log, one line every 10 s.
const tty = process.stderr.isTTY === true;
for (let i = 0; (loadavg()[0] ?? 0) < target && Date.now() - started < 120_000; i++) {
  const said = `waiting for the load to reach ${target.toFixed(1)}: ${(loadavg()[0] ?? 0).toFixed(1)}`;
  if (tty) process.stderr.write(`\r${said} `);
  else if (i % 5 === 0) process.stderr.write(`${said}\n`);
  await new Promise((resolve) => setTimeout(resolve, 2_000));
}
process.stderr.write(`${tty ? '\n' : ''}load ${(loadavg()[0] ?? 0).toFixed(1)} with ${count} busy process${count === 1 ? "" : "es"}; running ${[command, ...args].join(' ')}\n`);

const run = spawn(command, args, { stdio: 'inherit' });
run.on('error', (error) => {
  console.error(`could not start ${command}: ${error.message}`);
  process.exit(127);
});
run.on('exit', (code, signal) => process.exit(code ?? (signal === null ? 1 : 128)));
