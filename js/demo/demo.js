// The page: a crowd of src/scenario.js, one crowdsteer step per animation
// frame, drawn as pixels. By default 100,000 agents seek the pointer and
// keep apart; ?mode=floor: 10,000 agents leave a building of four rooms
// along a navigation field to its two exits, with ORCA and the walls.
// ?agents=N changes the crowd; ?test=F runs F frames (on the scripted
// pointer path), shows the state hash (the native one:
// js/test/web-scenario.golden, web-floor.golden), then times 120 animated
// frames and posts the figures and the canvas to /result (js/demo/check.mjs).
import * as cs from '../src/index.js';
import { createScenario, frame, pointerAt, createFloor, floorFrame, FLOOR_WALLS,
  FLOOR_PILLARS } from '../src/scenario.js';

const query = new URLSearchParams(location.search);
const onFloor = query.get('mode') === 'floor';
const count = Number(query.get('agents') || (onFloor ? 10000 : 100000));
const testFrames = Number(query.get('test') || 0);
const canvas = document.getElementById('view');
const stats = document.getElementById('stats');
const ctx = canvas.getContext('2d');
const image = ctx.createImageData(canvas.width, canvas.height);
const pixels = new Uint32Array(image.data.buffer);
const SCALE = canvas.width / 240; // the world's [-120, 120] square

const lib = await cs.init();
const floor = onFloor ? createFloor(lib, count) : null;
const crowd = onFloor ? floor.crowd : createScenario(lib, count);
const advance = onFloor ? () => floorFrame(floor) : (to) => frame(crowd, to);
const SPEED = onFloor ? 8 : 12; // for the colours
let pointer = [0, 0];
canvas.addEventListener('pointermove', (e) => {
  const r = canvas.getBoundingClientRect();
  pointer = [(e.clientX - r.left) / SCALE - 120, 120 - (e.clientY - r.top) / SCALE];
});

function draw() {
  pixels.fill(0xff1a1310); // opaque background (ABGR)
  const { px, py, vx, vy } = crowd; // re-taken each frame: views of the current memory
  const w = canvas.width, h = canvas.height;
  for (let i = 0; i < count; i++) {
    const x = ((px[i] + 120) * SCALE) | 0, y = ((120 - py[i]) * SCALE) | 0;
    if (x < 0 || y < 0 || x >= w || y >= h) continue;
    // Not Math.hypot: it made this loop 3-4x slower (100,000 agents in
    // Node: 8.0-9.3 ms against 1.9-2.7); speeds are far from overflow.
    const speed = Math.min(1, Math.sqrt(vx[i] * vx[i] + vy[i] * vy[i]) * (1 / SPEED));
    const red = (80 + 175 * speed) | 0, blue = (255 - 155 * speed) | 0;
    pixels[y * w + x] = 0xff000000 | (blue << 16) | (0xc0 << 8) | red;
  }
  ctx.putImageData(image, 0, 0);
  const at = (x, y) => [(x + 120) * SCALE, (120 - y) * SCALE];
  if (onFloor) { // the walls and pillars
    ctx.strokeStyle = '#8a93a6';
    ctx.lineWidth = 2;
    ctx.beginPath();
    for (const [x0, y0, x1, y1] of FLOOR_WALLS) {
      ctx.moveTo(...at(x0, y0));
      ctx.lineTo(...at(x1, y1));
    }
    ctx.stroke();
    ctx.fillStyle = '#8a93a6';
    for (const [cx, cy] of FLOOR_PILLARS) ctx.fillRect(...at(cx - 3, cy + 3), 6 * SCALE, 6 * SCALE);
  } else {
    ctx.strokeStyle = '#fff';
    ctx.beginPath();
    ctx.arc(...at(pointer[0], pointer[1]), 6, 0, 2 * Math.PI);
    ctx.stroke();
  }
  ctx.fillStyle = '#dde';
  ctx.font = '15px sans-serif';
  ctx.fillText(label, 10, 22);
}

// Frames per second and crowdsteer's share (grid + step), over the last 60 frames.
const times = [];
let label = 'crowdsteer';
function show(extra = '') {
  const last = times.slice(-60);
  const span = last.length > 1 ? last[last.length - 1].t - last[0].t : 0;
  const fps = span > 0 ? (1000 * (last.length - 1)) / span : 0;
  const step = last.reduce((s, x) => s + x.step, 0) / Math.max(1, last.length);
  const drawn = last.reduce((s, x) => s + x.draw, 0) / Math.max(1, last.length);
  label = `${count.toLocaleString('en')} agents, ${lib.active_isa()}: ` +
    `${fps.toFixed(1)} fps, crowdsteer ${step.toFixed(2)} ms/step${extra}`;
  stats.textContent = label;
  return { fps, step, drawn };
}

function animate(next, frames, done) {
  let f = 0;
  function tick(t) {
    const s = performance.now();
    advance(next(f));
    const step = performance.now() - s;
    draw();
    times.push({ t, step, draw: performance.now() - s - step });
    show();
    if (++f === frames) done();
    else requestAnimationFrame(tick);
  }
  requestAnimationFrame(tick);
}

if (testFrames > 0) {
  for (let f = 0; f < testFrames; f++) advance(pointerAt(f));
  const hash = crowd.hash();
  document.getElementById('hash').textContent = hash;
  document.title = `crowdsteer ${hash}`;
  pointer = pointerAt(testFrames);
  animate((f) => (pointer = pointerAt(testFrames + f)), 120, () => {
    const { fps, step, drawn } = show();
    draw();
    const png = canvas.toDataURL('image/png');
    fetch('/result', { method: 'POST', body: JSON.stringify({
      hash, frames: testFrames, agents: count, isa: lib.active_isa(), fps, step, drawn, png,
      userAgent: navigator.userAgent }) });
  });
} else {
  animate(() => pointer, Infinity, () => {});
}
