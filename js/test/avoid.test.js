// Avoidance through the package: a walled crowd (ORCA among the agents,
// four pillars and a wall) stepped from both WebAssembly builds gives the
// native library's state hashes (web-avoid.golden, checked natively on
// every ISA by tests/web/test_web_avoid.c), and the obstacle set's own
// calls behave as the C ones.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { init, SEEK, Target, REPORT_INSIDE, REPORT_WALL, GeometryError, GridError }
  from '../src/index.js';
import { parseGolden, pointerAt } from '../src/scenario.js';

const golden = parseGolden(
  await readFile(new URL('./web-avoid.golden', import.meta.url), 'utf8'));

function walls(lib) {
  const o = new lib.Obstacles();
  for (let k = 0; k < 4; k++) {
    const cx = k & 1 ? 20 : -20, cy = k & 2 ? 20 : -20;
    o.add([cx - 3, cx + 3, cx + 3, cx - 3], [cy - 3, cy - 3, cy + 3, cy + 3]);
  }
  return o.add([-40, -8], [0, 0]).build();
}

// tests/web/test_web_avoid.c's run(), call for call.
function run(lib, count, frames) {
  const crowd = new lib.Crowd(count, 2);
  const { px, py } = crowd;
  for (let i = 0; i < count; i++) {
    px[i] = 50 * lib.random(11, i, 0x51a7, 0);
    py[i] = 50 * lib.random(11, i, 0x51a7, 1);
  }
  const obstacles = walls(lib);
  const avoidance = { radius: 0.4, time_horizon: 2, obstacle_time_horizon: 1,
    neighbours: { radius: 3, max_neighbours: 10 }, obstacles };
  for (let f = 0; f < frames; f++)
    crowd.step([{ behaviour: SEEK, target: Target.point(pointerAt(f)),
      params: { max_speed: 12 }, weight: 1 }],
    { integrator: { max_speed: 12, max_force: 48, dt: 0.03125 }, avoidance });
  let held = 0, walled = 0;
  for (const r of crowd.report) {
    held += (r & REPORT_INSIDE) !== 0;
    walled += (r & REPORT_WALL) !== 0;
  }
  // The C test folds the report's counts into its hash the same way.
  const h = BigInt(`0x${crowd.hash()}`) ^ (BigInt(held) << 48n | BigInt(walled) << 32n);
  crowd.free();
  obstacles.free();
  return { hash: h.toString(16).padStart(16, '0'), held };
}

for (const simd of [true, false]) {
  test(`walled crowd hashes equal the native ones (${simd ? 'simd' : 'scalar'} build)`,
    async () => {
      const lib = await init({ simd });
      assert.equal(golden.length, 2);
      for (const { count, frames, hash } of golden) {
        const got = run(lib, count, frames);
        assert.equal(got.hash, hash, `${count} agents, ${frames} frames`);
        assert.ok(got.held > 0, 'some agents start inside a pillar and are held');
      }
    });
}

test('obstacle sets: inside, refusals, unbuilt sets', async () => {
  const lib = await init();
  const o = new lib.Obstacles();
  o.add([0, 4, 4, 0], [0, 0, 4, 4]);
  assert.equal(o.edge_count, 4);
  assert.throws(() => o.inside(1, 1), GridError);
  o.build();
  assert.ok(o.bytes > 0);
  assert.equal(o.inside(1, 1), true);
  assert.equal(o.inside(4, 1), false); // on an edge is outside
  assert.equal(o.inside(5, 1), false);
  assert.throws(() => o.add([0, 4, 0, 4], [0, 0, 4, 4]), GeometryError); // crosses itself
  assert.throws(() => o.add([0, 1], [0]), TypeError);
  const crowd = new lib.Crowd(2, 2);
  crowd.px.set([1, 10]);
  crowd.py.set([1, 10]);
  // A refused add changed nothing; an accepted one unbuilds the set: a
  // step refuses it, and writes nothing.
  o.add([30, 32, 32, 30], [30, 30, 32, 32]);
  assert.throws(() => crowd.step([{ behaviour: SEEK, target: Target.point([20, 20]), weight: 1 }],
    { avoidance: { obstacles: o } }), GridError);
  assert.deepEqual([...crowd.px], [1, 10]);
  o.build();
  crowd.step([{ behaviour: SEEK, target: Target.point([20, 20]), weight: 1 }],
    { avoidance: { radius: 0.1, obstacles: o } });
  assert.equal(crowd.report[0], REPORT_INSIDE); // held inside its polygon
  assert.deepEqual([crowd.px[0], crowd.py[0]], [1, 1]);
  assert.ok(crowd.px[1] > 10);
  o.free();
  assert.throws(() => o.inside(1, 1), TypeError);
  crowd.free();
});
