// crowdsteer's WebAssembly package against yuka (npm; installed out of tree
// for this benchmark only) in Node, on the same scenarios: seek; seek +
// separation (radius 1, about 8 neighbours each); the flock (separation,
// alignment, cohesion). Wall time per agent-step, the best of 3 runs.
//   node bench/web/bench.mjs [--yuka PATH/yuka.module.js] [--sizes 1000,10000]
//                            [--scenarios seek,separation,flock] [--only crowdsteer|yuka]
//                            [--yuka-cell EDGE] [--simd on|off] [--page N]
// --page N: also the demo page's crowd (js/src/scenario.js) of N agents, ms
// per frame (grid build and step) over the 120 frames after the page's 10.
// bench/web/native.c is the same crowdsteer scenarios in C (native ISAs).
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import * as cs from '../../js/src/index.js';
import { createScenario, frame, pointerAt } from '../../js/src/scenario.js';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const sizes = arg('sizes', '1000,10000,100000').split(',').map(Number);
const scenarios = arg('scenarios', 'seek,separation,flock').split(',');
const only = arg('only', '');
const yukaPath = arg('yuka', '/work/yuka-bench/node_modules/yuka/build/yuka.module.js');
const simd = arg('simd', 'auto');
// yuka's cell edge: its query tests every cell, so bigger cells than the
// radius pay (docs/web.md: 4 was its best of 1, 2, 4, 8 at 10,000 agents).
const yukaCell = Number(arg('yuka-cell', '4'));

// The square holding n agents at 8 / pi per unit area: about 8 within radius 1.
const side = (n) => Math.sqrt((n * Math.PI) / 8);
const RADIUS = 1, DT = 0.03125;

// Steps timed per run: at least 3, about 300,000 agent-steps.
const stepsFor = (n, slow) => Math.max(slow ? 1 : 3, Math.ceil((slow ? 2e4 : 3e5) / n));

function best(runs, steps, n, stepOnce) {
  stepOnce(); // warm: grid memory, JIT
  let min = Infinity;
  for (let r = 0; r < runs; r++) {
    const t = performance.now();
    for (let s = 0; s < steps; s++) stepOnce();
    min = Math.min(min, (performance.now() - t) / steps);
  }
  return (min * 1e6) / n; // ns per agent-step
}

function crowdsteerCase(lib, scenario, n) {
  const crowd = new lib.Crowd(n, 2);
  const L = side(n);
  for (let i = 0; i < n; i++) {
    crowd.px[i] = L * 0.5 * lib.random(5, i, 1, 0);
    crowd.py[i] = L * 0.5 * lib.random(5, i, 1, 1);
    crowd.vx[i] = lib.random(5, i, 2, 0);
    crowd.vy[i] = lib.random(5, i, 2, 1);
  }
  const move = { max_speed: 1, dt: DT };
  // A far target: the crowd moves as one, keeping its density (8 neighbours).
  const seek = { behaviour: cs.SEEK, target: cs.Target.point([10 * L, 0]) };
  const nb = { radius: RADIUS };
  const plan = {
    seek: [seek],
    separation: [seek, { behaviour: cs.SEPARATION, neighbours: nb, weight: 2 }],
    flock: [{ behaviour: cs.SEPARATION, neighbours: nb, weight: 2 },
      { behaviour: cs.ALIGNMENT, neighbours: nb }, { behaviour: cs.COHESION, neighbours: nb }],
  }[scenario];
  return () => {
    if (scenario !== 'seek') crowd.grid_build(RADIUS, { positions_only: scenario === 'separation' });
    crowd.step(plan, { integrator: move });
  };
}

function yukaCase(YUKA, scenario, n) {
  const em = new YUKA.EntityManager();
  const L = side(n);
  if (scenario !== 'seek') {
    const cells = Math.max(1, Math.floor((L + 4) / yukaCell));
    em.spatialIndex = new YUKA.CellSpacePartitioning(L + 4, 1, L + 4, cells, 1, cells);
  }
  const rnd = (i, tick, axis) => cs_random(5, i, tick, axis);
  const target = new YUKA.Vector3(10 * L, 0, 0);
  for (let i = 0; i < n; i++) {
    const v = new YUKA.Vehicle();
    v.position.set(L * 0.5 * rnd(i, 1, 0), 0, L * 0.5 * rnd(i, 1, 1));
    v.velocity.set(rnd(i, 2, 0), 0, rnd(i, 2, 1));
    v.maxSpeed = 1;
    if (scenario !== 'flock') v.steering.add(new YUKA.SeekBehavior(target));
    if (scenario !== 'seek') {
      v.updateNeighborhood = true;
      v.neighborhoodRadius = RADIUS;
      const sep = new YUKA.SeparationBehavior();
      sep.weight = 2;
      v.steering.add(sep);
    }
    if (scenario === 'flock') {
      v.steering.add(new YUKA.AlignmentBehavior());
      v.steering.add(new YUKA.CohesionBehavior());
    }
    em.add(v);
  }
  return () => em.update(DT);
}

let cs_random;
const lib = await cs.init(simd === 'auto' ? {} : { simd: simd === 'on' });
cs_random = lib.random;
const YUKA = only === 'crowdsteer' ? null : await import(pathToFileURL(yukaPath).href);
console.log(`# node ${process.version}, crowdsteer ${lib.version()} on ${lib.active_isa()}` +
  `${YUKA ? ', yuka' : ''}; ns per agent-step, best of 3`);
console.log('| scenario | agents | crowdsteer | yuka | ratio |\n|---|---|---|---|---|');
for (const scenario of scenarios) {
  for (const n of sizes) {
    const a = only === 'yuka' ? NaN
      : best(3, stepsFor(n, false), n, crowdsteerCase(lib, scenario, n));
    const slow = scenario !== 'seek';
    const b = YUKA ? best(slow && n >= 100000 ? 1 : 3, stepsFor(n, slow), n,
      yukaCase(YUKA, scenario, n)) : NaN;
    console.log(`| ${scenario} | ${n} | ${a.toFixed(1)} | ${b.toFixed(0)} | ${(b / a).toFixed(0)}x |`);
  }
}
// The page's crowd: where it gathers round the pointer it is denser than
// the scenarios above (the page's step, not its drawing: docs/web.md).
const page = Number(arg('page', '0'));
if (page > 0) {
  const crowd = createScenario(lib, page);
  for (let f = 0; f < 10; f++) frame(crowd, pointerAt(f));
  const t = performance.now();
  for (let f = 10; f < 130; f++) frame(crowd, pointerAt(f));
  console.log(`| page | ${page} | ${((performance.now() - t) / 120).toFixed(2)} ms/frame |`);
}
