// The demo page's crowd (js/demo): agents scattered by crowdsteer's random
// numbers seek a pointer and keep apart (separation through a grid rebuilt
// every frame). tests/web/test_web_scenario.c is the same crowd in C, call
// for call: both must give the state hashes of js/test/web-scenario.golden.
import { SEEK, SEPARATION, Target } from './index.js';

export const SEPARATION_RADIUS = 1;
const SPEED = 12;
const MOVE = { max_speed: SPEED, max_force: 4 * SPEED, dt: 0.03125 };

export function createScenario(lib, count) {
  const crowd = new lib.Crowd(count, 2);
  const { px, py } = crowd;
  for (let i = 0; i < count; i++) {
    px[i] = 100 * lib.random(7, i, 0x51a7, 0);
    py[i] = 100 * lib.random(7, i, 0x51a7, 1);
  }
  return crowd;
}

// The pointer's scripted path: round a square, 3 units a frame (integers:
// the same bits in C and JS).
export function pointerAt(frame) {
  const t = 3 * (frame % 40), side = Math.floor(frame / 40) % 4;
  return [[-60 + t, -60], [60, -60 + t], [60 - t, 60], [-60, 60 - t]][side];
}

// One frame: the grid from the state, then one step toward `pointer`.
export function frame(crowd, pointer) {
  crowd.grid_build(SEPARATION_RADIUS, { positions_only: true });
  crowd.step([
    { behaviour: SEEK, target: Target.point(pointer), params: { max_speed: SPEED }, weight: 1 },
    { behaviour: SEPARATION, neighbours: { radius: SEPARATION_RADIUS },
      params: { max_speed: SPEED }, weight: 4 },
  ], { integrator: MOVE });
}

// The golden file's lines: [{ count, frames, hash }].
export function parseGolden(text) {
  return text.split('\n').filter((l) => l && !l.startsWith('#')).map((l) => {
    const [count, frames, hash] = l.trim().split(/\s+/);
    return { count: Number(count), frames: Number(frames), hash };
  });
}
