// The page in headless Chromium, both its crowds: serves js/, opens
// /demo/?test=F (the 100,000-agent line of js/test/web-scenario.golden) and
// /demo/?mode=floor&test=F (the 10,000-agent line of web-floor.golden),
// waits for each page's result, checks its state hash equals the native
// one, prints the figures and saves the canvases as docs/images/web-demo.png
// and web-floor.png.
// `node js/demo/check.mjs [chromium]`; exit 1 on a wrong hash or no result.
import { spawn } from 'node:child_process';
import { readFile, writeFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from './serve.mjs';
import { parseGolden } from '../src/scenario.js';

const browser = process.argv[2] || 'chromium';

async function goldenLine(file, count) {
  const lines = parseGolden(await readFile(new URL(`../test/${file}`, import.meta.url), 'utf8'));
  return lines.find((g) => g.count === count);
}

// One page in a fresh headless Chromium: its posted result, or null.
async function runPage(query) {
  let finish;
  const result = new Promise((resolve) => (finish = resolve));
  const server = await serve(0, finish);
  const url = `http://127.0.0.1:${server.address().port}/demo/?${query}`;
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
  if (!got) console.error(`check.mjs: no result from ${url} in 120 s\n${log.slice(-2000)}`);
  return got;
}

const pages = [
  { name: 'seek and separation', golden: await goldenLine('web-scenario.golden', 100000),
    query: (frames) => `test=${frames}`, png: 'web-demo.png' },
  { name: 'the floor (field, ORCA, walls)', golden: await goldenLine('web-floor.golden', 10000),
    query: (frames) => `mode=floor&test=${frames}`, png: 'web-floor.png' },
];
let failed = false;
for (const page of pages) {
  const want = page.golden;
  const got = await runPage(page.query(want.frames));
  if (!got) {
    failed = true;
    continue;
  }
  console.log(`${page.name}: ${got.userAgent}\n${got.agents} agents, ${got.frames} frames ` +
    `on ${got.isa}: state hash ${got.hash} (native ${want.hash}); then ${got.fps.toFixed(1)} ` +
    `fps, crowdsteer ${got.step.toFixed(2)} ms per step (grid build included), ` +
    `drawing ${got.drawn.toFixed(2)} ms`);
  const png = Buffer.from(got.png.replace(/^data:image\/png;base64,/, ''), 'base64');
  await writeFile(new URL(`../../docs/images/${page.png}`, import.meta.url), png);
  if (got.hash !== want.hash) {
    console.error(`check.mjs: ${page.name}: the page's state hash is not the native one`);
    failed = true;
  }
}
if (failed) process.exit(1);
