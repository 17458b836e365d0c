// The page in headless Chromium: serves js/, opens /demo/?test=F (the
// 100,000-agent line of js/test/web-scenario.golden), waits for the page's
// result, checks its state hash equals the native one, prints the figures
// and saves the canvas as docs/images/web-demo.png.
// `node js/demo/check.mjs [chromium]`; exit 1 on a wrong hash or no result.
import { spawn } from 'node:child_process';
import { readFile, writeFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from './serve.mjs';
import { parseGolden } from '../src/scenario.js';

const browser = process.argv[2] || 'chromium';
const golden = parseGolden(
  await readFile(new URL('../test/web-scenario.golden', import.meta.url), 'utf8'));
const want = golden.find((g) => g.count === 100000);
let finish;
const result = new Promise((resolve) => (finish = resolve));
const server = await serve(0, finish);
const url = `http://127.0.0.1:${server.address().port}/demo/?test=${want.frames}`;
const profile = await mkdtemp(join(tmpdir(), 'crowdsteer-chromium-'));
const chromium = spawn(browser, ['--headless', '--no-sandbox', '--disable-gpu',
  '--no-first-run', '--disable-extensions', '--disable-background-networking',
  '--remote-debugging-port=0', `--user-data-dir=${profile}`, '--window-size=820,840', url],
{ stdio: ['ignore', 'ignore', 'pipe'], detached: true });
let log = '';
chromium.stderr.on('data', (d) => (log += d));
const timeout = setTimeout(() => finish(null), 120_000);
const got = await result;
clearTimeout(timeout);
// The whole process group: Chromium's helpers outlive its main process
// and may still be writing the profile (a CI run failed on rmdir's
// ENOTEMPTY), so the removal retries, and a leftover directory is only a
// warning.
const exited = new Promise((r) => chromium.once('exit', r));
try {
  process.kill(-chromium.pid, 'SIGTERM');
} catch {
  chromium.kill();
}
server.close();
await exited;
try {
  await rm(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
} catch (e) {
  console.warn(`check.mjs: ${profile} left behind (${e.code})`);
}
if (!got) {
  console.error(`check.mjs: no result from the page in 120 s\n${log.slice(-2000)}`);
  process.exit(1);
}
console.log(`${got.userAgent}\n${got.agents} agents, ${got.frames} frames on ${got.isa}: ` +
  `state hash ${got.hash} (native ${want.hash}); then ${got.fps.toFixed(1)} fps, ` +
  `crowdsteer ${got.step.toFixed(2)} ms per step (grid build included), ` +
  `drawing ${got.drawn.toFixed(2)} ms`);
const png = Buffer.from(got.png.replace(/^data:image\/png;base64,/, ''), 'base64');
await writeFile(new URL('../../docs/images/web-demo.png', import.meta.url), png);
if (got.hash !== want.hash) {
  console.error('check.mjs: the page\'s state hash is not the native one');
  process.exit(1);
}
