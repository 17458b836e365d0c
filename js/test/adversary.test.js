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
