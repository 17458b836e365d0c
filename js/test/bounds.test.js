// World bounds through the package: contain (steering only outside the
// region), CONTAIN in a step (contain then integrate, bit for bit), the
// step's wrap (the step then wrap), the same state from both WebAssembly
// builds, and refusals that write nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { init, SEEK, CONTAIN, ACCUMULATE, BOUNDS_SPHERE, BOUNDS_BOX, Target,
  NullPointerError, ParameterError } from '../src/index.js';

const N = 301;
const AXES = ['px', 'py', 'pz', 'vx', 'vy', 'vz'];

function crowdOf(lib, dims, seed, spread) {
  const crowd = new lib.Crowd(N, dims);
  for (let k = 0; k < 2 * dims; k++) {
    const a = crowd[AXES[dims === 2 ? [0, 1, 3, 4][k] : k]];
    for (let i = 0; i < N; i++) a[i] = (k < dims ? spread : 3) * lib.random(seed, i, 7, k);
  }
  return crowd;
}

function bits(crowd, dims) {
  const names = dims === 2 ? ['px', 'py', 'vx', 'vy'] : AXES;
  return names.map((n) => Array.from(new Uint32Array(Float32Array.from(crowd[n]).buffer)));
}

const hashes = {};
for (const simd of [true, false]) {
  test(`contain and wrap in a step (${simd ? 'simd' : 'scalar'} build)`, async () => {
    const lib = await init({ simd });
    const params = { max_speed: 1.5, time_to_target: 0.75 }, integrator = { max_speed: 3 };
    for (const dims of [2, 3]) {
      for (const shape of [BOUNDS_SPHERE, BOUNDS_BOX]) {
        const bounds = { shape, centre: [1, -2, 3], radius: 20, box_min: [-20, -15, -25],
          box_max: [18, 25, 12], prediction: 1.5 };
        const want = crowdOf(lib, dims, 5 + shape, 30), got = crowdOf(lib, dims, 5 + shape, 30);
        want.contain(bounds, params);
        const steered = Array.from(want.sx).filter((s) => s !== 0).length;
        assert.ok(steered > 30 && steered < N - 30, `${steered} agents steered`);
        want.sx.fill(0), want.sy.fill(0);
        if (dims === 3) want.sz.fill(0);
        want.contain(bounds, params, { mode: ACCUMULATE, weight: 2.5 }).integrate(integrator);
        got.step([{ behaviour: CONTAIN, bounds, params, weight: 2.5 }], { integrator });
        assert.deepEqual(bits(got, dims), bits(want, dims), `contain ${dims}D shape ${shape}`);
        hashes[`${simd} contain ${dims} ${shape}`] = got.hash();
        want.free(), got.free();
      }
      const lo = [-10, -8, -9], hi = [9, 10, 11];
      const want = crowdOf(lib, dims, 9, 9), got = crowdOf(lib, dims, 9, 9);
      const seek = [{ behaviour: SEEK, target: Target.point([40, 40, 40]) }];
      want.step(seek, { integrator: { max_speed: 4 } });
      const moved = bits(want, dims);
      want.wrap(lo.slice(0, dims), hi.slice(0, dims));
      assert.notDeepEqual(bits(want, dims), moved); // some agents wrapped
      got.step(seek, { integrator: { max_speed: 4 }, wrap: [lo, hi] });
      assert.deepEqual(bits(got, dims), bits(want, dims), `wrap ${dims}D`);
      hashes[`${simd} wrap ${dims}`] = got.hash();
      want.free(), got.free();
    }
  });
}

test('both builds give the same states', () => {
  const keys = Object.keys(hashes).filter((k) => k.startsWith('true '));
  assert.equal(keys.length, 6);
  for (const k of keys) assert.equal(hashes[k], hashes[k.replace('true ', 'false ')], k);
});

test('a missing or bad region, a bad wrap box: their errors, nothing written', async () => {
  const lib = await init();
  const crowd = crowdOf(lib, 2, 3, 10);
  const before = bits(crowd, 2);
  assert.throws(() => crowd.step([{ behaviour: CONTAIN }]), NullPointerError);
  assert.throws(() => crowd.step([{ behaviour: CONTAIN, bounds: { radius: -1 } }]),
    ParameterError);
  const ok = [{ behaviour: CONTAIN, bounds: { radius: 5 } }];
  assert.throws(() => crowd.step(ok, { wrap: [[0, 0], [0, 1]] }), ParameterError);
  assert.throws(() => crowd.step(ok, { wrap: [0, 1] }), TypeError);
  assert.throws(() => crowd.wrap([0, 0], [1, Number.NaN]), ParameterError);
  assert.throws(() => crowd.contain({ shape: 2, radius: 1 }), ParameterError);
  assert.deepEqual(bits(crowd, 2), before);
  crowd.step(ok); // the wrap of a refused step is not kept
  crowd.free();
});
