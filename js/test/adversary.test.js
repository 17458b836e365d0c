// Views under an adversary: a crowd warm with positions-only grids that
// then builds a full grid of the same count may grow the memory (the grid
// now copies velocities too), detaching views taken before; views read
// again are whole, and later full-grid frames allocate nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as cs from '../src/index.js';

const lib = await cs.init();

test('a full grid after positions-only grids: views read again, then warm', () => {
  const n = 300000;
  const crowd = new lib.Crowd(n, 2);
  for (let i = 0; i < n; i++) {
    crowd.px[i] = (i % 541) * 0.5;
    crowd.py[i] = Math.floor(i / 541) * 0.5;
  }
  const behaviours = [{ behaviour: cs.SEEK, target: cs.Target.point([10, 0]) },
    { behaviour: cs.SEPARATION, neighbours: { radius: 1 }, weight: 4 }];
  const frame = (positions_only) => {
    crowd.grid_build(1, { positions_only });
    crowd.step(behaviours, { integrator: { max_speed: 2, dt: 0.03125 } });
  };
  frame(true);
  frame(true);
  const before = lib.memory_buffer();
  const px = crowd.px;
  frame(true);
  assert.equal(lib.memory_buffer(), before); // warm: nothing allocated
  const x = px[12345];
  crowd.grid_build(1); // velocities too: more than the grid held
  const grew = lib.memory_buffer() !== before;
  assert.equal(px.length, grew ? 0 : n); // detached exactly when it grew
  assert.equal(crowd.px.length, n);
  assert.equal(crowd.px[12345], x);
  crowd.step(behaviours, { integrator: { max_speed: 2, dt: 0.03125 } });
  const warm = lib.memory_buffer(), view = crowd.px;
  frame(false);
  frame(false);
  assert.equal(lib.memory_buffer(), warm);
  assert.equal(view.length, n);
  crowd.free();
});

test('a freed crowd throws TypeError from every call, before reaching memory', () => {
  const crowd = new lib.Crowd(8, 2);
  crowd.free();
  crowd.free(); // twice is fine
  const calls = [() => crowd.step([{ behaviour: cs.SEEK, target: cs.Target.point([1, 1]) }]),
    () => crowd.wander({}), () => crowd.grid_build(1), () => crowd.hash(),
    () => crowd.seek(cs.Target.point([1, 1])), () => crowd.integrate({}),
    () => crowd.separation({ radius: 1 }), () => crowd.px];
  for (const call of calls)
    assert.throws(call, (e) => e instanceof TypeError && /freed/.test(e.message));
});

// The module takes integers as 32 bits: a larger one must be refused, not
// wrapped onto a valid value (2**32 + 2 would be 2), and nothing written.
test('integers past 32 bits are refused, never wrapped', () => {
  const crowd = new lib.Crowd(4, 2);
  crowd.px.set([1, 2, 3, 4]);
  crowd.sx.fill(7);
  const target = cs.Target.point([10, 0]);
  const refused = (f, cls) => {
    const px = [...crowd.px], sx = [...crowd.sx];
    assert.throws(f, cls);
    assert.deepEqual([...crowd.px], px);
    assert.deepEqual([...crowd.sx], sx);
  };
  refused(() => crowd.seek(target, {}, { end: 2 ** 32 + 2 }), cs.RangeError);
  refused(() => crowd.seek(target, {}, { begin: 2 ** 32, end: 4 }), cs.RangeError);
  refused(() => crowd.integrate({}, { end: 2 ** 32 + 1 }), cs.RangeError);
  refused(() => crowd.wrap([0, 0], [1, 1], { begin: 2 ** 32 }), cs.RangeError);
  refused(() => crowd.seek(target, {}, { mode: 2 }), cs.ParameterError);
  refused(() => crowd.seek(target, {}, { mode: 2 ** 32 + 1 }), cs.ParameterError);
  refused(() => crowd.seek(target, {}, { mode: 0.5 }), cs.ParameterError);
  const seek = [{ behaviour: cs.SEEK, target }];
  refused(() => crowd.step(seek, { combine: 2 ** 32 }), cs.ParameterError);
  refused(() => crowd.step(seek, { tile_size: 2 ** 32 + 1 }), cs.ParameterError);
  refused(() => crowd.step([{ behaviour: 2 ** 32, target }]), cs.ParameterError);
  refused(() => crowd.step(seek, { end: 2 ** 32 + 1 }), cs.RangeError);
  refused(() => crowd.step(seek, { seed: 2 ** 32 }), TypeError);
  refused(() => crowd.contain({ shape: 2 ** 32, radius: 1 }), cs.ParameterError);
  crowd.grid_build(1);
  refused(() => crowd.separation({ radius: 1, max_neighbours: 2 ** 32 + 3 }), cs.ParameterError);
  refused(() => crowd.separation({ radius: 1, max_neighbours: -1 }), cs.ParameterError);
  assert.throws(() => lib.random(2 ** 32, 0, 0, 0), TypeError);
  // A target's index, made or changed past 32 bits, is refused where used.
  const far = cs.Target.agent(1);
  far.agent = 2 ** 32 + 1;
  refused(() => crowd.seek(far), TypeError);
  refused(() => crowd.step([{ behaviour: cs.SEEK, target: far }]), TypeError);
  refused(() => crowd.seek(new cs.Target(3, [0, 0, 0], [0, 0, 0], 2 ** 32 + 2)), TypeError);
  refused(() => crowd.seek(new cs.Target(2 ** 32, [0, 0, 0], [0, 0, 0], 0)),
    cs.ParameterError);
  const field = new lib.Field().build({ width: 4, height: 4, cell_size: 1, goal_x: [0.5],
    goal_y: [0.5] });
  assert.throws(() => field.time(2 ** 32 + 3, 2), cs.ParameterError);
  assert.throws(() => field.direction(2 ** 32, 0), cs.ParameterError);
  assert.equal(field.time(0, 0), 0);
  field.free();
  crowd.free();
});

test('a step weight of NaN and a missing target are refused', () => {
  const crowd = new lib.Crowd(3, 2);
  crowd.px.set([0, 1, 2]);
  crowd.sx.fill(7);
  const target = cs.Target.point([10, 0]);
  for (const weight of [NaN, Infinity])
    assert.throws(() => crowd.step([{ behaviour: cs.SEEK, target, weight }]),
      cs.ParameterError);
  assert.throws(() => crowd.step([{ behaviour: cs.SEEK, target, weight: '2' }]), TypeError);
  for (const f of [() => crowd.seek(), () => crowd.seek(null), () => crowd.pursuit(undefined)])
    assert.throws(f, cs.NullPointerError);
  assert.deepEqual([...crowd.px], [0, 1, 2]);
  assert.deepEqual([...crowd.sx], [7, 7, 7]);
  crowd.wander({ max_speed: 1 }); // wander has no target
  crowd.free();
});
