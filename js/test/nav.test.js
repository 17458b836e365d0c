// Navigation through the package: a floor of two rooms (a door, a pillar)
// whose agents follow a navigation field and a pathway blended, with ORCA
// and the walls, from both WebAssembly builds gives the native library's
// state and steering hashes (web-nav.golden, checked natively on every ISA
// by tests/web/test_web_nav.c), as does the page's floor (web-floor.golden,
// tests/web/test_web_floor.c); and the field's and pathway's own calls
// behave as the C ones.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { init, FOLLOW_FIELD, FOLLOW_PATH, ACCUMULATE, DimsError, GeometryError, GoalError,
  GridError, ParameterError } from '../src/index.js';
import { parseGolden, createFloor, floorFrame } from '../src/scenario.js';

const golden = parseGolden(
  await readFile(new URL('./web-nav.golden', import.meta.url), 'utf8'));
const floorGolden = parseGolden(
  await readFile(new URL('./web-floor.golden', import.meta.url), 'utf8'));

function floorPlan(lib) {
  const o = new lib.Obstacles();
  for (const [x0, y0, x1, y1] of [[-2, -2, 40, -2], [40, -2, 40, 40], [40, 40, -2, 40],
    [-2, 40, -2, -2], [18, -2, 18, 16], [18, 22, 18, 40]])
    o.add([x0, x1], [y0, y1]);
  return o.add([28, 32, 32, 28], [26, 26, 30, 30]).build();
}

// tests/web/test_web_nav.c's run(), call for call.
function run(lib, count, frames) {
  const crowd = new lib.Crowd(count, 2);
  const { px, py } = crowd;
  for (let i = 0; i < count; i++) {
    px[i] = 14 * Math.abs(lib.random(12, i, 0x4e41, 0));
    py[i] = 36 * Math.abs(lib.random(12, i, 0x4e41, 1));
  }
  const obstacles = floorPlan(lib);
  const field = new lib.Field().build({ origin: [-2, -2], cell_size: 0.5, width: 84,
    height: 84, obstacles, goal_x: [36], goal_y: [4] });
  const path = new lib.Pathway([2, 2, 16], [2, 34, 34], null, { radius: 1.5 });
  const follow = { direction: 1, prediction_time: 1, lead_distance: 2 };
  const speed = { max_speed: 1.4 };
  const behaviours = [{ behaviour: FOLLOW_FIELD, field, params: speed, weight: 1 },
    { behaviour: FOLLOW_PATH, path, follow, params: speed, weight: 0.5 }];
  const avoidance = { radius: 0.25, time_horizon: 2, obstacle_time_horizon: 1,
    neighbours: { radius: 2, max_neighbours: 8 }, obstacles };
  for (let f = 0; f < frames; f++)
    crowd.step(behaviours, { integrator: { max_speed: 1.4, max_force: 4, dt: 0.1 }, avoidance });
  crowd.follow_field(field, speed, { weight: 1 });
  crowd.follow_path(path, follow, speed, { mode: ACCUMULATE, weight: 0.5 });
  const hash = crowd._hash(9);
  let through = 0; // agents past the door, in the far room
  for (const x of crowd.px) through += x > 18;
  crowd.free();
  field.free();
  path.free();
  obstacles.free();
  return { hash, through };
}

for (const simd of [true, false]) {
  test(`floor hashes equal the native ones (${simd ? 'simd' : 'scalar'} build)`, async () => {
    const lib = await init({ simd });
    assert.equal(golden.length, 2);
    for (const { count, frames, hash } of golden) {
      const got = run(lib, count, frames);
      assert.equal(got.hash, hash, `${count} agents, ${frames} frames`);
      if (frames >= 150) assert.ok(got.through > 0, 'agents went through the door');
    }
  });
}

for (const simd of [true, false]) {
  test(`the page's floor hashes equal the native ones (${simd ? 'simd' : 'scalar'} build)`,
    async () => {
      const lib = await init({ simd });
      assert.equal(floorGolden.length, 2);
      for (const { count, frames, hash } of floorGolden) {
        const floor = createFloor(lib, count);
        for (let f = 0; f < frames; f++) floorFrame(floor);
        assert.equal(floor.crowd.hash(), hash, `${count} agents, ${frames} frames`);
        floor.free();
      }
    });
}

test('fields: times, directions, rebuilds and refusals', async () => {
  const lib = await init();
  const o = new lib.Obstacles().add([4, 6, 6, 4], [0, 0, 10, 10]).build(); // a wall block
  const f = new lib.Field();
  const desc = { origin: [0, 0], cell_size: 1, width: 10, height: 10, obstacles: o,
    goal_x: [9.5], goal_y: [0.5] };
  assert.throws(() => f.time(0, 0), GridError); // not built yet
  f.build(desc);
  assert.ok(f.bytes > 0);
  assert.equal(f.time(9, 0), 0); // the goal's cell
  assert.equal(f.time(0, 0), Infinity); // the block cuts the floor in two
  assert.equal(f.direction(5, 5).blocked, true);
  const east = f.direction(8, 0);
  assert.deepEqual([east.x, east.y, east.blocked], [1, 0, false]);
  assert.throws(() => f.time(10, 0), ParameterError); // outside the grid
  // The block opens at the bottom: a rebuild of its cells reaches the west.
  const open = new lib.Obstacles().add([4, 6, 6, 4], [2, 2, 10, 10]).build();
  f.rebuild({ ...desc, obstacles: open }, [3, 0, 7, 10]); // cells touching the block
  assert.equal(f.time(0, 0), 9); // along the bottom row
  const fresh = new lib.Field().build({ ...desc, obstacles: open });
  for (let cy = 0; cy < 10; cy++)
    for (let cx = 0; cx < 10; cx++)
      assert.equal(f.time(cx, cy), fresh.time(cx, cy), `cell ${cx}, ${cy}`);
  // A goal in a blocked cell: GoalError, the field as it was.
  assert.throws(() => f.build({ ...desc, goal_x: [5.5], goal_y: [5.5] }), GoalError);
  assert.ok(Number.isFinite(f.time(0, 0)));
  assert.throws(() => f.build({ ...desc, cost: [1, 2] }), TypeError); // not width * height
  assert.throws(() => f.build({ ...desc, cost: new Float32Array(100).fill(0.5) }),
    ParameterError); // a slowness below 1
  const unbuilt = new lib.Obstacles().add([1, 2], [1, 2]);
  assert.throws(() => f.build({ ...desc, obstacles: unbuilt }), GridError);
  for (const x of [f, fresh]) x.free();
  assert.throws(() => f.time(0, 0), TypeError);
  const crowd = new lib.Crowd(2, 2);
  assert.throws(() => crowd.follow_field(f), TypeError); // freed
  assert.throws(() => crowd.step([{ behaviour: FOLLOW_FIELD, weight: 1 }]), TypeError);
  for (const x of [crowd, o, open, unbuilt]) x.free();
});

test('pathways: length, refusals, following', async () => {
  const lib = await init();
  const p = new lib.Pathway([0, 3, 3], [0, 0, 4], null, { radius: 0.5 });
  assert.equal(p.dims, 2);
  assert.equal(p.length, 7);
  assert.ok(p.bytes > 0);
  const loop = new lib.Pathway([0, 3, 3], [0, 0, 4], null, { cyclic: true });
  assert.equal(loop.length, 12);
  assert.throws(() => new lib.Pathway([1, 1], [2, 2]), GeometryError); // equal points
  assert.throws(() => new lib.Pathway([1], [2]), GeometryError); // one point
  assert.throws(() => new lib.Pathway([0, 1], [0]), TypeError);
  assert.throws(() => new lib.Pathway([0, 1], [0, 0], null, { radius: -1 }), ParameterError);
  const crowd = new lib.Crowd(1, 2);
  crowd.px[0] = 1, crowd.py[0] = 2; // off the path: steered back towards it
  crowd.follow_path(p, { lead_distance: 1 }, { max_speed: 1 });
  assert.ok(crowd.sy[0] < 0, 'steered towards the path');
  assert.throws(() => crowd.follow_path(p, { direction: 2 }), ParameterError);
  const p3 = new lib.Pathway([0, 1], [0, 0], [0, 1]);
  assert.equal(p3.dims, 3);
  assert.throws(() => crowd.follow_path(p3, {}), DimsError);
  for (const x of [crowd, p, loop, p3]) x.free();
  assert.throws(() => p.length, TypeError);
});
