// The page's crowd stepped through the package in Node: the native C
// library's state hashes (web-scenario.golden, checked natively on every
// ISA by tests/web/test_web_scenario.c), from both WebAssembly builds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { init } from '../src/index.js';
import { createScenario, frame, parseGolden, pointerAt } from '../src/scenario.js';

const golden = parseGolden(
  await readFile(new URL('./web-scenario.golden', import.meta.url), 'utf8'));

for (const simd of [true, false]) {
  test(`page crowd hashes equal the native ones (${simd ? 'simd' : 'scalar'} build)`, async () => {
    const lib = await init({ simd });
    assert.equal(lib.active_isa(), simd ? 'simd128' : 'scalar');
    assert.equal(golden.length, 3);
    for (const { count, frames, hash } of golden) {
      const crowd = createScenario(lib, count);
      for (let f = 0; f < frames; f++) frame(crowd, pointerAt(f));
      assert.equal(crowd.hash(), hash, `${count} agents, ${frames} frames`);
      crowd.free();
    }
  });
}

test('the SIMD build forced to its scalar backend gives the same bits', async () => {
  const lib = await init({ simd: true });
  lib.force_isa('scalar');
  assert.equal(lib.active_isa(), 'scalar');
  const { count, frames, hash } = golden[0];
  const crowd = createScenario(lib, count);
  for (let f = 0; f < frames; f++) frame(crowd, pointerAt(f));
  assert.equal(crowd.hash(), hash);
});
