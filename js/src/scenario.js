// The demo page's crowds (js/demo). The default: agents scattered by
// crowdsteer's random numbers seek a pointer and keep apart (separation
// through a grid rebuilt every frame); tests/web/test_web_scenario.c is the
// same crowd in C, call for call: both must give the state hashes of
// js/test/web-scenario.golden. The floor (?mode=floor): a building emptied
// through its exits along a navigation field, with ORCA and walls;
// tests/web/test_web_floor.c, js/test/web-floor.golden.
import { SEEK, SEPARATION, FOLLOW_FIELD, Target } from './index.js';

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

// The floor: outer walls with an exit on the left and one on the right,
// a cross of inner walls with a door to each room, four square pillars.
export const FLOOR_WALLS = Object.freeze([
  [-100, -100, 100, -100], [-100, 100, 100, 100], [-100, -100, -100, 40],
  [-100, 48, -100, 100], [100, -100, 100, -48], [100, -40, 100, 100],
  [0, -100, 0, -30], [0, -22, 0, 22], [0, 30, 0, 100],
  [-100, 0, -70, 0], [-62, 0, 62, 0], [70, 0, 100, 0]]);
export const FLOOR_PILLARS = Object.freeze([[-50, -50], [50, -50], [50, 50], [-50, 50]]);
const FLOOR_MOVE = { max_speed: 8, max_force: 32, dt: 0.03125 };

/** The floor's crowd, obstacles and field (free() frees the three). */
export function createFloor(lib, count) {
  const crowd = new lib.Crowd(count, 2);
  const { px, py } = crowd;
  for (let i = 0; i < count; i++) {
    px[i] = 95 * lib.random(13, i, 0xf1, 0); // in [-95, 95): lib.random is in [-1, 1)
    py[i] = 95 * lib.random(13, i, 0xf1, 1);
  }
  const obstacles = new lib.Obstacles();
  for (const [x0, y0, x1, y1] of FLOOR_WALLS) obstacles.add([x0, x1], [y0, y1]);
  for (const [cx, cy] of FLOOR_PILLARS)
    obstacles.add([cx - 3, cx + 3, cx + 3, cx - 3], [cy - 3, cy - 3, cy + 3, cy + 3]);
  obstacles.build();
  const field = new lib.Field().build({ origin: [-120, -120], cell_size: 1, width: 240,
    height: 240, obstacles, goal_x: [-115, 115], goal_y: [44, -44] });
  return { crowd, obstacles, field,
    free() { crowd.free(); field.free(); obstacles.free(); } };
}

// One frame of the floor: every agent follows the field, ORCA and the walls last.
export function floorFrame(floor) {
  floor.crowd.step([{ behaviour: FOLLOW_FIELD, field: floor.field, params: { max_speed: 8 },
    weight: 1 }], { integrator: FLOOR_MOVE, avoidance: { radius: 0.4, time_horizon: 1,
    obstacle_time_horizon: 0.5, neighbours: { radius: 2, max_neighbours: 8 },
    obstacles: floor.obstacles } });
}

// The golden file's lines: [{ count, frames, hash }].
export function parseGolden(text) {
  return text.split('\n').filter((l) => l && !l.startsWith('#')).map((l) => {
    const [count, frames, hash] = l.trim().split(/\s+/);
    return { count: Number(count), frames: Number(frames), hash };
  });
}
