// Compiled, never run: the package's TypeScript declarations (src/index.d.ts)
// accept the documented uses and refuse wrong ones. .ci/steps/45-web.sh runs
// `tsc --noEmit --strict` on it (Debian's node-typescript).
import {
  init, Target, SEEK, SEPARATION, FOLLOW_FIELD, FOLLOW_PATH, ACCUMULATE, PRIORITY,
  REPORT_WALL, GoalError,
} from '../src/index.js';

async function main(): Promise<void> {
  const cs = await init({ simd: true });
  const crowd = new cs.Crowd(100, 2);
  const px: Float32Array = crowd.px;
  px[0] = 1;
  const obstacles = new cs.Obstacles().add([0, 1, 1, 0], [0, 0, 1, 1]).build();
  const field = new cs.Field().build({ width: 8, height: 8, cell_size: 1, origin: [0, 0],
    obstacles, goal_x: [6.5], goal_y: [6.5], cost: new Float32Array(64).fill(1) });
  field.rebuild({ width: 8, height: 8, cell_size: 1, goal_x: [6.5], goal_y: [6.5] },
    [0, 0, 2, 2]);
  const t: number = field.time(3, 3);
  const d: { x: number; y: number; blocked: boolean } = field.direction(3, 3);
  const path = new cs.Pathway([0, 5], [0, 5], null, { radius: 1, cyclic: false });
  const length: number = path.length;
  crowd.grid_build(2)
    .seek(Target.point([3, 4]), { max_speed: 2 })
    .separation({ radius: 2 }, { max_speed: 2 }, { mode: ACCUMULATE, weight: 2 })
    .follow_field(field, { max_speed: 1 }, { mode: ACCUMULATE })
    .follow_path(path, { direction: -1, prediction_time: 1 }, { max_speed: 1 })
    .step([
      { behaviour: SEEK, target: Target.point([1, 2]), weight: 1 },
      { behaviour: SEPARATION, neighbours: { radius: 2, max_neighbours: 8 }, weight: 2 },
      { behaviour: FOLLOW_FIELD, field, weight: 1 },
      { behaviour: FOLLOW_PATH, path, follow: { lead_distance: 2 }, weight: 0.5 },
    ], { integrator: { max_speed: 2, dt: 0.1 }, combine: PRIORITY,
      avoidance: { radius: 0.3, neighbours: { radius: 2 }, obstacles } });
  const walled: boolean = (crowd.report[0] & REPORT_WALL) !== 0;
  const hash: string = crowd.hash();
  try {
    field.build({ width: 8, height: 8, cell_size: 1, goal_x: [0.5], goal_y: [0.5] });
  } catch (e) {
    if (e instanceof GoalError) console.log(e.status);
  }
  // @ts-expect-error: a path follows in direction 1 or -1 only
  crowd.follow_path(path, { direction: 2 });
  // @ts-expect-error: a field needs its width
  field.build({ height: 8, cell_size: 1 });
  // @ts-expect-error: count is a number
  new cs.Crowd('100');
  console.log(t, d, length, walled, hash);
  for (const x of [crowd, obstacles, field, path]) x.free();
}
void main();
