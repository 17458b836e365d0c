// The package's API: the README's quick start, errors named by status with
// nothing written, views over memory that grows, NaN payloads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as cs from '../src/index.js';

const lib = await cs.init();

test('quick start: four agents seek a point and arrive', () => {
  const crowd = new lib.Crowd(4, 2);
  crowd.px.set([0, 0, 5, -3]);
  crowd.py.set([0, 4, -2, 1]);
  for (let step = 0; step < 60; step++)
    crowd.seek(cs.Target.point([10, 0]), { max_speed: 0.5 }).integrate({ max_speed: 0.5 });
  for (let i = 0; i < 4; i++) assert.ok(Math.hypot(crowd.px[i] - 10, crowd.py[i]) <= 0.5);
  crowd.free();
});

test('every status is its own exception class, and nothing is written', () => {
  const crowd = new lib.Crowd(8, 2);
  crowd.sx.fill(7);
  assert.throws(() => crowd.seek(cs.Target.point([1, 1]), { max_speed: -1 }),
    (e) => e instanceof cs.ParameterError && e instanceof cs.Error && e.status === 4 &&
      e.name === 'ParameterError');
  assert.deepEqual([...crowd.sx], Array(8).fill(7));
  assert.throws(() => crowd.seek(cs.Target.point([1, 1]), {}, { begin: 2, end: 9 }),
    (e) => e instanceof cs.RangeError && e.status === 3);
  assert.throws(() => crowd.pursuit(cs.Target.agent(8)), cs.AgentIndexError);
  assert.throws(() => crowd.separation({ radius: 2 }), cs.GridError); // no grid built yet
  crowd.grid_build(1);
  assert.throws(() => crowd.separation({ radius: 2 }), cs.ParameterError); // radius > cell
  assert.deepEqual([...crowd.sx], Array(8).fill(7));
  assert.throws(() => lib.force_isa('avx3'), cs.UnknownIsaError);
  assert.throws(() => lib.force_isa('avx2'), cs.UnsupportedIsaError);
  assert.throws(() => crowd.seek(cs.Target.point([1, 1]), { speed: 1 }), TypeError);
  assert.throws(() => new lib.Crowd(4, 4), cs.DimsError);
  const names = [cs.NullPointerError, cs.DimsError, cs.RangeError, cs.ParameterError,
    cs.AgentIndexError, cs.UnknownIsaError, cs.UnsupportedIsaError, cs.OutOfMemoryError,
    cs.GridError, cs.AlignmentError, cs.OverlapError, cs.GeometryError, cs.GoalError]
    .map((c) => c.name);
  assert.deepEqual(names, ['NullPointerError', 'DimsError', 'RangeError', 'ParameterError',
    'AgentIndexError', 'UnknownIsaError', 'UnsupportedIsaError', 'OutOfMemoryError',
    'GridError', 'AlignmentError', 'OverlapError', 'GeometryError', 'GoalError']);
  crowd.free();
});

test('views: zero-copy, and re-taken from the getters after memory grows', () => {
  const crowd = new lib.Crowd(16, 3);
  const px = crowd.px;
  px[3] = 42;
  assert.equal(crowd.px[3], 42);
  assert.equal(px.buffer, lib.memory_buffer()); // a view of the module's memory
  const before = lib.memory_buffer().byteLength;
  const big = new lib.Crowd(2_000_000, 3); // 96 MB of arrays: the memory grows
  assert.ok(lib.memory_buffer().byteLength > before);
  assert.equal(px.length, 0); // the old view is detached, as documented
  assert.equal(crowd.px[3], 42); // the getter gives a view of the new buffer
  assert.equal(crowd.px.length, 16);
  big.free();
  crowd.free();
});

test('flee, arrive, wander, cohesion, alignment and priority steps run', () => {
  const crowd = new lib.Crowd(64, 2);
  for (let i = 0; i < 64; i++) {
    crowd.px[i] = lib.random(1, i, 0, 0) * 5;
    crowd.py[i] = lib.random(1, i, 0, 1) * 5;
    crowd.vx[i] = lib.random(1, i, 1, 0);
  }
  crowd.flee(cs.Target.point([0, 0]), { max_speed: 1 });
  assert.ok(crowd.sx[0] * crowd.px[0] > 0); // away from the threat
  crowd.arrive(cs.Target.point([0, 0]), { slowing_radius: 2 }, { mode: cs.ACCUMULATE, weight: 0.5 });
  crowd.wander({ wander_radius: 1, wander_distance: 2, jitter: 0.5 }, { seed: 3, tick: 1 });
  crowd.grid_build(2);
  crowd.cohesion({ radius: 2 }).alignment({ radius: 2 }, {}, { mode: cs.ACCUMULATE });
  crowd.mask.fill(1);
  crowd.step([
    { behaviour: cs.SEPARATION, neighbours: { radius: 1 } },
    { behaviour: cs.SEEK, target: cs.Target.point([3, 3]) },
  ], { combine: cs.PRIORITY, mask: true, integrator: { max_speed: 1 } });
  for (const a of [crowd.px, crowd.py, crowd.vx, crowd.vy])
    assert.ok(a.every(Number.isFinite));
  crowd.free();
});

// WebAssembly leaves the payload bits of a NaN it produces open (and the
// sign); docs/guarantees.md promises that finite results never depend on
// them: an agent whose position is NaN, whatever its payload, leaves every
// other agent's bits alone, and stays NaN.
test('finite results never depend on NaN payloads', () => {
  const hashes = new Set();
  const nanBits = [0x7fc00000, 0xffc00000, 0x7f800001, 0x7fbfffff, 0xffffffff];
  for (const bits of nanBits) {
    const crowd = new lib.Crowd(200, 2);
    for (let i = 0; i < 200; i++) {
      crowd.px[i] = 4 * lib.random(9, i, 0, 0);
      crowd.py[i] = 4 * lib.random(9, i, 0, 1);
    }
    new Uint32Array(crowd.px.buffer, crowd.px.byteOffset, 200)[17] = bits;
    assert.ok(Number.isNaN(crowd.px[17]));
    for (let f = 0; f < 5; f++) {
      crowd.grid_build(1);
      crowd.step([
        { behaviour: cs.SEEK, target: cs.Target.point([1, 1]) },
        { behaviour: cs.SEPARATION, neighbours: { radius: 1 }, weight: 2 },
      ], { integrator: { max_speed: 1, dt: 0.25 } });
    }
    let finite = 0;
    for (let i = 0; i < 200; i++) if (i !== 17 && Number.isFinite(crowd.px[i])) finite++;
    assert.equal(finite, 199);
    hashes.add(crowd.hash()); // NaNs canonicalised, every finite bit hashed
    crowd.free();
  }
  assert.equal(hashes.size, 1);
});

test('finite results never depend on NaN payloads: fields, pathways, ORCA, walls', () => {
  const hashes = new Set();
  const nanBits = [0x7fc00000, 0xffc00000, 0x7f800001, 0x7fbfffff, 0xffffffff];
  const obstacles = new lib.Obstacles().add([1, 2, 2, 1], [1, 1, 2, 2]).add([0, 3], [3, 3])
    .build();
  const field = new lib.Field().build({ origin: [-1, -1], cell_size: 0.25, width: 24,
    height: 24, obstacles, goal_x: [4.5], goal_y: [4.5] });
  const path = new lib.Pathway([0, 4, 4], [0, 0, 4], null, { radius: 0.5 });
  for (const bits of nanBits) {
    const crowd = new lib.Crowd(300, 2);
    for (let i = 0; i < 300; i++) {
      crowd.px[i] = 4 * lib.random(10, i, 0, 0);
      crowd.py[i] = 4 * lib.random(10, i, 0, 1);
    }
    const words = new Uint32Array(crowd.px.buffer, crowd.px.byteOffset, 300);
    words[17] = bits;
    words[230] = bits ^ 0x00400001; // another payload (and a signalling NaN)
    for (let f = 0; f < 5; f++)
      crowd.step([
        { behaviour: cs.FOLLOW_FIELD, field, params: { max_speed: 1 }, weight: 1 },
        { behaviour: cs.FOLLOW_PATH, path, follow: { prediction_time: 1, lead_distance: 1 },
          params: { max_speed: 1 }, weight: 0.5 },
      ], { integrator: { max_speed: 1, dt: 0.25 },
        avoidance: { radius: 0.05, neighbours: { radius: 0.5, max_neighbours: 8 }, obstacles } });
    let finite = 0;
    for (let i = 0; i < 300; i++) finite += Number.isFinite(crowd.px[i]);
    assert.equal(finite, 298);
    hashes.add(crowd.hash());
    crowd.free();
  }
  assert.equal(hashes.size, 1);
  for (const x of [obstacles, field, path]) x.free();
});

test('the engine picks the SIMD build where it validates SIMD', () => {
  assert.equal(lib.build, cs.simdSupported() ? 'simd' : 'scalar');
  assert.match(lib.version(), /^\d+\.\d+\.\d+$/);
});

// Last: a failed allocation may leave the memory grown.
test('a crowd larger than the memory can hold is OutOfMemoryError', () => {
  assert.throws(() => new lib.Crowd(0x3fffffff, 2), cs.OutOfMemoryError); // > 4 GiB of arrays
  // 12 arrays of 0x15555556 floats: a byte count that wraps to 40 in 32 bits.
  assert.throws(() => new lib.Crowd(0x15555556, 2), cs.OutOfMemoryError);
  assert.throws(() => new lib.Crowd(50_000_000, 2), cs.OutOfMemoryError); // > the 2 GiB heap
});
