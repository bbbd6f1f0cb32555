/**
 * `pnpm --filter @airlock/example-compose-agent start`: builds a throw-away project, opens the
 * composed Airlock on it and runs the three loops with scripted models, then removes the folder.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { composeAirlock, runOpenAILoop, runWithAiSdk, runWithAirlockAgent } from './index.js';

const root = mkdtempSync(join(tmpdir(), 'airlock-compose-'));
try {
  const project = join(root, 'project');
  mkdirSync(join(project, 'notes'), { recursive: true });
  writeFileSync(join(project, 'README.md'), '# Demo\nA tiny project for the compose-agent example.\n');
  writeFileSync(join(project, '.env'), 'API_TOKEN=do-not-show\n');
  // A home of its own, so your ~/.config/airlock is neither read nor written.
  const env = { ...process.env, HOME: join(root, 'home'), XDG_CONFIG_HOME: join(root, 'home', '.config'), XDG_STATE_HOME: join(root, 'state') };
  const airlock = await composeAirlock({ cwd: project, env, homeDir: join(root, 'home') });
  try {
    const log = (line: string): void => console.log(`  ${line}`);
    console.log('Airlock agent:', (await runWithAirlockAgent(airlock, undefined, log)).answer);
    console.log('AI SDK:', (await runWithAiSdk(airlock, undefined, log)).text);
    console.log('OpenAI loop:', await runOpenAILoop(airlock, undefined, undefined, log));
    console.log('notes/summary.md:', JSON.stringify(readFileSync(join(project, 'notes', 'summary.md'), 'utf8')));
  } finally {
    await airlock.close();
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}
