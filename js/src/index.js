// crowdsteer for JavaScript: the C library compiled to WebAssembly, with a
// small API over typed arrays that are views of the module's memory. Names
// follow the C API and the Python package: behaviours, Target, params with
// the C field names, errors named by status.
import { loadModule, simdSupported } from './load.js';

export { simdSupported };

export const SEEK = 0, FLEE = 1, ARRIVE = 2, LEAVE = 3, PURSUIT = 4, EVADE = 5, WANDER = 6;
export const SEPARATION = 7, COHESION = 8, ALIGNMENT = 9, FOLLOW_FIELD = 10,
  FOLLOW_PATH = 11, CONTAIN = 12;
/** Shapes of a containing region (crowdsteer_bounds.h). */
export const BOUNDS_SPHERE = 0, BOUNDS_BOX = 1;
export const BLEND = 0, PRIORITY = 1;
export const OVERWRITE = 0, ACCUMULATE = 1;
/** Bits of Crowd.report after a step with avoidance (crowdsteer_avoid.h). */
export const REPORT_CROWDED = 1, REPORT_WALL = 2, REPORT_INSIDE = 4;
const NEIGHBOUR_BEHAVIOURS = new Set([SEPARATION, COHESION, ALIGNMENT]);

// crowdsteer_params' uniform fields, in the struct's order.
export const PARAM_FIELDS = Object.freeze([
  'max_speed', 'max_force', 'mass', 'dt', 'time_to_target', 'target_radius',
  'slowing_radius', 'panic_radius', 'danger_radius', 'escape_radius', 'max_prediction',
  'wander_radius', 'wander_distance', 'jitter',
]);

/** Every library status but OK raises a subclass of Error, as in Python. */
export class Error extends globalThis.Error {
  constructor(status, message) {
    super(message);
    this.status = status;
    this.name = new.target.name;
  }
}
const STATUS_CLASSES = [null];
function statusClass(name) {
  const cls = { [name]: class extends Error {} }[name];
  STATUS_CLASSES.push(cls);
  return cls;
}
export const NullPointerError = statusClass('NullPointerError');
export const DimsError = statusClass('DimsError');
export const RangeError = statusClass('RangeError');
export const ParameterError = statusClass('ParameterError');
export const AgentIndexError = statusClass('AgentIndexError');
export const UnknownIsaError = statusClass('UnknownIsaError');
export const UnsupportedIsaError = statusClass('UnsupportedIsaError');
export const OutOfMemoryError = statusClass('OutOfMemoryError');
export const GridError = statusClass('GridError');
export const AlignmentError = statusClass('AlignmentError');
export const OverlapError = statusClass('OverlapError');
export const GeometryError = statusClass('GeometryError');
export const GoalError = statusClass('GoalError');

/** Targets of seek .. evade: one point (and velocity), or one agent. */
export class Target {
  constructor(kind, point, velocity, agent) {
    this.kind = kind;
    this.point = point;
    this.velocity = velocity;
    this.agent = agent;
  }
  static point(point, velocity = [0, 0, 0]) {
    return new Target(0, vec3(point, 'point'), vec3(velocity, 'velocity'), 0);
  }
  static agent(index) {
    if (!Number.isInteger(index) || index < 0 || index > 0xffffffff)
      throw new TypeError('Target.agent takes an agent index');
    return new Target(3, [0, 0, 0], [0, 0, 0], index);
  }
}

// A target's arguments for the module, checked where it is used (a
// Target's fields can be set after it is made): kind, point, velocity,
// agent index.
function targetArgs(t) {
  if (!(t instanceof Target)) throw new TypeError('target must be a Target');
  parameter(t.kind, 'target.kind');
  return [t.kind, ...vec3(t.point, 'target.point'), ...vec3(t.velocity, 'target.velocity'),
    u32(t.agent, 'target.agent')];
}

function vec3(v, what) {
  if (!v || (v.length !== 2 && v.length !== 3) || ![...v].every((x) => typeof x === 'number'))
    throw new TypeError(`${what} must be 2 or 3 numbers`);
  return [v[0], v[1], v.length === 3 ? v[2] : 0];
}

// The module takes integers as 32 bits, which would wrap anything larger
// (2**32 + 1 becomes 1): integers are checked here, never wrapped.
function isU32(v) { return Number.isInteger(v) && v >= 0 && v <= 0xffffffff; }
function u32(v, what) {
  if (!isU32(v)) throw new TypeError(`${what} must be an integer in [0, 2**32)`);
  return v;
}
// An enum or size the library checks (mode, combine, shape, behaviour,
// tile_size, max_neighbours): a number no 32-bit field can hold is refused
// as the library refuses a value out of its range.
function parameter(v, what) {
  if (typeof v !== 'number') throw new TypeError(`${what} must be a number`);
  if (!isU32(v)) throw new ParameterError(4, `crowdsteer: ${what} is out of range`);
  return v;
}

// Array slots of a crowd in its C block (js/wasm/glue.c).
const SLOTS = { px: 0, py: 1, pz: 2, vx: 3, vy: 4, vz: 5, sx: 6, sy: 7, sz: 8,
  wx: 9, wy: 10, wz: 11 };

/** Loads the WebAssembly module: resolves to the API bound to it.
 *  options.simd: true or false forces the SIMD or the scalar build. */
export async function init(options = {}) {
  const { module: m, build } = await loadModule(options);
  const buffer = () => m.HEAPU8.buffer;

  function check(status) {
    if (status !== 0) {
      const cls = STATUS_CLASSES[status] || Error;
      throw new cls(status, `crowdsteer: ${m.UTF8ToString(m._csjs_status_string(status))}`);
    }
  }

  function withString(s, f) {
    const bytes = m.lengthBytesUTF8(s) + 1;
    const p = m._malloc(bytes);
    try {
      m.stringToUTF8(s, p, bytes);
      return f(p);
    } finally {
      m._free(p);
    }
  }

  function range(crowd, begin, end) {
    const b = begin === undefined ? 0 : begin;
    const e = end === undefined ? crowd.count : end;
    if (!Number.isInteger(b) || !Number.isInteger(e) || b < 0 || e < 0)
      throw new TypeError('begin and end must be non-negative integers');
    if (b > e || e > crowd.count)
      throw new RangeError(3, 'crowdsteer: begin > end or end > count');
    return [b, e];
  }
  // A call's output and range: [mode (OVERWRITE or ACCUMULATE), weight,
  // begin, end].
  function output(crowd, options) {
    const { mode = OVERWRITE, weight = 0, begin, end } = options || {};
    parameter(mode, 'mode');
    if (typeof weight !== 'number') throw new TypeError('weight must be a number');
    return [mode, weight, ...range(crowd, begin, end)];
  }

  class Crowd {
    /** count agents in dims (2 or 3) dimensions, every array zeroed. */
    constructor(count, dims = 2) {
      if (!Number.isInteger(count) || count < 0 || count > 0x3fffffff)
        throw new TypeError('count must be an integer in [0, 2**30)');
      if (dims !== 2 && dims !== 3) throw new DimsError(2, 'crowdsteer: dims must be 2 or 3');
      const handle = m._csjs_crowd_new(count, dims);
      if (!handle) throw new OutOfMemoryError(8, 'crowdsteer: out of memory');
      this.handle = handle;
      this.count = count;
      this.dims = dims;
      this._views = null;
      this._buffer = null;
    }
    /** Frees the crowd's memory (again: nothing); every later call throws TypeError. */
    free() {
      if (this.handle) m._csjs_crowd_free(this.handle);
      this.handle = 0;
      this._views = null;
    }
    // The crowd's handle; a freed crowd's calls would reach address 0.
    _live() {
      if (!this.handle) throw new TypeError('crowdsteer: the crowd was freed');
      return this.handle;
    }
    // The views of this crowd's arrays over the module's memory as it is now.
    _view(slot) {
      this._live();
      const buf = buffer();
      if (this._buffer !== buf) {
        this._buffer = buf;
        this._views = new Map();
      }
      let v = this._views.get(slot);
      if (!v) {
        const p = m._csjs_crowd_array(this.handle, slot);
        v = slot === 12 || slot === 14 ? new Uint32Array(buf, p, this.count)
          : slot === 13 ? new Float32Array(buf, p, PARAM_FIELDS.length)
          : new Float32Array(buf, p, this.count);
        this._views.set(slot, v);
      }
      return v;
    }
    get px() { return this._view(SLOTS.px); }
    get py() { return this._view(SLOTS.py); }
    get pz() { return this._view(SLOTS.pz); }
    get vx() { return this._view(SLOTS.vx); }
    get vy() { return this._view(SLOTS.vy); }
    get vz() { return this._view(SLOTS.vz); }
    /** The steering the behaviours write and integrate() reads. */
    get sx() { return this._view(SLOTS.sx); }
    get sy() { return this._view(SLOTS.sy); }
    get sz() { return this._view(SLOTS.sz); }
    /** Wander's per-agent direction (zeros are a valid start). */
    get wx() { return this._view(SLOTS.wx); }
    get wy() { return this._view(SLOTS.wy); }
    get wz() { return this._view(SLOTS.wz); }
    /** Per-agent behaviour bits of step(..., { mask: true }). */
    get mask() { return this._view(12); }
    /** REPORT_* bits of each agent of the last step with avoidance. */
    get report() { return this._view(14); }

    _params(params) {
      const p = this._view(13);
      p.fill(0);
      if (params === undefined || params === null) return;
      if (typeof params !== 'object') throw new TypeError('params must be an object');
      for (const [key, value] of Object.entries(params)) {
        const k = PARAM_FIELDS.indexOf(key);
        if (k < 0) throw new TypeError(`unknown params field ${key}`);
        if (typeof value !== 'number') throw new TypeError(`params.${key} must be a number`);
        p[k] = value;
      }
    }

    _behaviour(behaviour, target, params, options) {
      if (behaviour !== WANDER && (target === undefined || target === null))
        throw new NullPointerError(1, 'crowdsteer: the behaviour needs a target');
      const t = targetArgs(target || Target.point([0, 0]));
      this._params(params);
      const [mode, weight, b, e] = output(this, options);
      check(m._csjs_behaviour(this.handle, behaviour, ...t, mode, weight, b, e));
      return this;
    }
    seek(target, params, options) { return this._behaviour(SEEK, target, params, options); }
    flee(target, params, options) { return this._behaviour(FLEE, target, params, options); }
    arrive(target, params, options) { return this._behaviour(ARRIVE, target, params, options); }
    leave(target, params, options) { return this._behaviour(LEAVE, target, params, options); }
    pursuit(target, params, options) { return this._behaviour(PURSUIT, target, params, options); }
    evade(target, params, options) { return this._behaviour(EVADE, target, params, options); }
    /** Wander with the crowd's wander state; seed and tick as crowdsteer_wander_state. */
    wander(params, { seed = 0, tick = 0, ...options } = {}) {
      m._csjs_wander_seed(this._live(), u32(seed, 'seed'), u32(tick, 'tick'));
      return this._behaviour(WANDER, null, params, options);
    }

    /** Hands a region { shape, centre, radius, box_min, box_max, prediction }
     *  (crowdsteer_bounds) to the module for the next contain or step. */
    _bounds(bounds) {
      if (!bounds || typeof bounds !== 'object') throw new TypeError('bounds must be an object');
      const { shape = BOUNDS_SPHERE, centre = [0, 0, 0], radius = 0, box_min = [0, 0, 0],
        box_max = [0, 0, 0], prediction = 0 } = bounds;
      for (const [name, v] of Object.entries({ shape, radius, prediction }))
        if (typeof v !== 'number') throw new TypeError(`bounds.${name} must be a number`);
      parameter(shape, 'bounds.shape');
      m._csjs_bounds_set(this._live(), shape, ...vec3(centre, 'bounds.centre'), radius,
        ...vec3(box_min, 'bounds.box_min'), ...vec3(box_max, 'bounds.box_max'), prediction);
    }
    /** Containment (crowdsteer_contain): seek towards the region's centre for
     *  the agents outside it (or outside within bounds.prediction), else 0. */
    contain(bounds, params, options) {
      this._bounds(bounds);
      this._params(params);
      const [mode, weight, b, e] = output(this, options);
      check(m._csjs_contain(this.handle, mode, weight, b, e));
      return this;
    }
    /** Wraps the positions into the box (crowdsteer_wrap). */
    wrap(box_min, box_max, { begin, end } = {}) {
      this._bounds({ box_min, box_max });
      const [b, e] = range(this, begin, end);
      check(m._csjs_wrap(this.handle, b, e));
      return this;
    }

    /** Builds the crowd's neighbour grid from its state (crowdsteer_grid_build). */
    grid_build(cell_size, { positions_only = false } = {}) {
      check(m._csjs_grid_build(this._live(), cell_size, positions_only ? 1 : 0));
      return this;
    }
    _neighbours(behaviour, neighbours, params, options) {
      const { radius = 0, max_neighbours = 0 } = neighbours || {};
      this._params(params);
      const [mode, weight, b, e] = output(this, options);
      check(m._csjs_neighbour_behaviour(this.handle, behaviour, radius,
        parameter(max_neighbours, 'neighbours.max_neighbours'),
        mode, weight, b, e));
      return this;
    }
    separation(neighbours, params, options) {
      return this._neighbours(SEPARATION, neighbours, params, options);
    }
    cohesion(neighbours, params, options) {
      return this._neighbours(COHESION, neighbours, params, options);
    }
    alignment(neighbours, params, options) {
      return this._neighbours(ALIGNMENT, neighbours, params, options);
    }

    /** Follow-the-field (crowdsteer_follow_field): every agent follows
     *  `field` (a built Field); writes the steering as the others do. */
    follow_field(field, params, options) {
      if (!(field instanceof Field)) throw new TypeError('field must be a Field');
      this._params(params);
      const [mode, weight, b, e] = output(this, options);
      check(m._csjs_follow_field(this._live(), field._live(), mode, weight, b, e));
      return this;
    }
    /** Path following (crowdsteer_follow_path): every agent follows `path`
     *  (a Pathway of the crowd's dims) with follow = { direction (1 or -1),
     *  prediction_time, lead_distance }. */
    follow_path(path, follow, params, options) {
      const [direction, prediction, lead] = pathFollow(path, follow);
      this._params(params);
      const [mode, weight, b, e] = output(this, options);
      check(m._csjs_follow_path(this._live(), path._live(), direction, prediction, lead,
        mode, weight, b, e));
      return this;
    }

    /** Moves the agents by their steering (crowdsteer_integrate). */
    integrate(params, { begin, end } = {}) {
      this._params(params);
      const [b, e] = range(this, begin, end);
      check(m._csjs_integrate(this.handle, b, e));
      return this;
    }

    /** One crowdsteer_step in place: behaviours is a list of
     *  { behaviour, target, params, weight, neighbours: { radius, max_neighbours } }
     *  (neighbour behaviours use the grid last built), integrator the
     *  integrator's params. Wander uses options.seed and options.tick.
     *  avoidance: ORCA as the step's last stage, { radius, time_horizon,
     *  obstacle_time_horizon, neighbours: { radius, max_neighbours },
     *  obstacles } (neighbours through a grid the step builds, cells as
     *  wide as their radius; none: obstacles only; obstacles a built
     *  Obstacles); each agent's REPORT_* bits land in crowd.report.
     *  CONTAIN takes its region as .bounds (as contain's), FOLLOW_FIELD
     *  its field as .field (a built Field), FOLLOW_PATH its pathway as
     *  .path and .follow = { direction, prediction_time, lead_distance }
     *  (as follow_path's); wrap:
     *  [box_min, box_max] wraps the new positions last (crowdsteer_wrap). */
    step(behaviours, { integrator, combine = BLEND, priority_threshold = 0, mask = false,
      tile_size = 0, seed = 0, tick = 0, avoidance, wrap, begin, end } = {}) {
      if (!Array.isArray(behaviours)) throw new TypeError('behaviours must be an array');
      m._csjs_step_clear(this._live());
      m._csjs_wander_seed(this.handle, u32(seed, 'seed'), u32(tick, 'tick'));
      parameter(combine, 'combine');
      parameter(tile_size, 'tile_size');
      for (const s of behaviours) {
        if (!s || typeof s.behaviour !== 'number') throw new TypeError('a behaviour needs .behaviour');
        parameter(s.behaviour, 'behaviour');
        const weight = s.weight === undefined ? 0 : s.weight;
        if (typeof weight !== 'number') throw new TypeError('weight must be a number');
        const t = targetArgs(s.target || Target.point([0, 0]));
        if (NEIGHBOUR_BEHAVIOURS.has(s.behaviour) && !s.neighbours)
          throw new NullPointerError(1, 'crowdsteer: a neighbour behaviour needs neighbours');
        const { radius = 0, max_neighbours = 0 } = s.neighbours || {};
        this._params(s.params);
        check(m._csjs_step_add(this.handle, s.behaviour, ...t, weight, radius,
          parameter(max_neighbours, 'neighbours.max_neighbours')));
        if (s.behaviour === CONTAIN && s.bounds !== undefined && s.bounds !== null) {
          this._bounds(s.bounds);
          m._csjs_step_bounds(this.handle);
        }
        if (s.behaviour === FOLLOW_FIELD) {
          if (!(s.field instanceof Field)) throw new TypeError('FOLLOW_FIELD needs .field, a Field');
          m._csjs_step_follow(this.handle, s.field._live(), 0, 1, 0, 0);
        } else if (s.behaviour === FOLLOW_PATH) {
          const [direction, prediction, lead] = pathFollow(s.path, s.follow);
          m._csjs_step_follow(this.handle, 0, s.path._live(), direction, prediction, lead);
        }
      }
      if (wrap !== undefined && wrap !== null) {
        if (!Array.isArray(wrap) || wrap.length !== 2)
          throw new TypeError('wrap must be [box_min, box_max]');
        this._bounds({ box_min: wrap[0], box_max: wrap[1] });
      }
      m._csjs_step_wrap(this.handle, wrap !== undefined && wrap !== null ? 1 : 0);
      this._avoidance(avoidance);
      this._params(integrator);
      const [b, e] = range(this, begin, end);
      check(m._csjs_step_run(this.handle, combine, priority_threshold, mask ? 1 : 0,
        tile_size, b, e));
      return this;
    }

    _avoidance(avoidance) {
      if (avoidance === undefined || avoidance === null) {
        m._csjs_step_avoid(this.handle, 0, 0, 0, 0, 0, 0, 0);
        return;
      }
      if (typeof avoidance !== 'object') throw new TypeError('avoidance must be an object');
      const { radius = 0, time_horizon = 0, obstacle_time_horizon = 0, neighbours,
        obstacles } = avoidance;
      for (const [name, v] of Object.entries({ radius, time_horizon, obstacle_time_horizon }))
        if (typeof v !== 'number') throw new TypeError(`avoidance.${name} must be a number`);
      const { radius: reach = 0, max_neighbours = 0 } = neighbours || {};
      if (neighbours && (typeof reach !== 'number' || !(reach > 0)))
        throw new ParameterError(4, 'crowdsteer: avoidance.neighbours.radius must be > 0');
      if (obstacles !== undefined && obstacles !== null && !(obstacles instanceof Obstacles))
        throw new TypeError('avoidance.obstacles must be an Obstacles');
      m._csjs_step_avoid(this.handle, 1, radius, time_horizon, obstacle_time_horizon,
        neighbours ? reach : 0, parameter(max_neighbours, 'avoidance.neighbours.max_neighbours'),
        obstacles ? obstacles._live() : 0);
    }

    /** FNV-1a of the state's bits (positions, then velocities; NaNs
     *  canonicalised) as 16 hex digits: the native state hash. */
    hash() { return this._hash(6); }
    // The same hash over the state and then the steering (the tests').
    _hash(arrays) {
      const p = m._csjs_crowd_hash(this._live(), arrays) >>> 2;
      const w = new Uint32Array(buffer());
      return w[p + 1].toString(16).padStart(8, '0') + w[p].toString(16).padStart(8, '0');
    }
  }

  /** A static obstacle set (crowdsteer_obstacles_*): polygons
   *  (counter-clockwise vertex loops) and walls (two vertices), built once
   *  into a grid of edges before steps use it. */
  class Obstacles {
    constructor() {
      this.handle = m._csjs_obstacles_new();
      if (!this.handle) throw new OutOfMemoryError(8, 'crowdsteer: out of memory');
    }
    _live() {
      if (!this.handle) throw new TypeError('crowdsteer: the obstacle set was freed');
      return this.handle;
    }
    /** Adds a polygon or wall: x and y, arrays of its vertices' coordinates. */
    add(x, y) {
      const n = x?.length;
      if (!Number.isInteger(n) || y?.length !== n || n > 0x1000000)
        throw new TypeError('x and y must be arrays of the same length');
      withFloats([x, y], (px, py) => check(m._csjs_obstacles_add(this._live(), px, py, n)));
      return this;
    }
    /** Builds the grid of edges (cell_size 0: the library picks one). */
    build(cell_size = 0) {
      check(m._csjs_obstacles_build(this._live(), cell_size));
      return this;
    }
    /** Whether (x, y) is strictly inside a polygon of the set (built). */
    inside(x, y) {
      const r = m._csjs_obstacles_inside(this._live(), x, y);
      if (r > 1) check(r - 2);
      return r === 1;
    }
    get edge_count() { return m._csjs_obstacles_edge_count(this._live()); }
    get bytes() { return m._csjs_obstacles_bytes(this._live()) >>> 0; }
    /** Frees the set; no crowd may step with it after. */
    free() {
      if (this.handle) m._csjs_obstacles_free(this.handle);
      this.handle = 0;
    }
  }

  // A path follow's [direction, prediction_time, lead_distance], checked
  // as the JavaScript side can (the library checks the values).
  function pathFollow(path, follow) {
    if (!(path instanceof Pathway)) throw new TypeError('path must be a Pathway');
    const { direction = 1, prediction_time = 0, lead_distance = 0 } = follow || {};
    for (const [name, v] of Object.entries({ direction, prediction_time, lead_distance }))
      if (typeof v !== 'number') throw new TypeError(`follow.${name} must be a number`);
    if (direction !== 1 && direction !== -1)
      throw new ParameterError(4, 'crowdsteer: follow.direction must be 1 or -1');
    return [direction, prediction_time, lead_distance];
  }

  // Float32 copies of `arrays` in the module's memory for one call:
  // f(...pointers) runs with them (0 for a null or absent array), then
  // they are freed.
  function withFloats(arrays, f) {
    const lengths = arrays.map((a) => (a === undefined || a === null ? 0 : a.length));
    for (const n of lengths)
      if (!Number.isInteger(n) || n > 0x10000000) throw new TypeError('arrays must be array-like');
    const total = lengths.reduce((x, y) => x + y, 0);
    const p = m._malloc(4 * total + 8);
    if (!p) throw new OutOfMemoryError(8, 'crowdsteer: out of memory');
    try {
      let at = p;
      const pointers = arrays.map((a, k) => {
        if (!lengths[k]) return 0;
        new Float32Array(buffer(), at, lengths[k]).set(a);
        const q = at;
        at += 4 * lengths[k];
        return q;
      });
      return f(...pointers);
    } finally {
      m._free(p);
    }
  }

  /** A navigation field (crowdsteer_field_*): the travel time to the
   *  nearest goal over a grid of an obstacle set, and the direction down
   *  it in every cell, which FOLLOW_FIELD agents follow. */
  class Field {
    constructor() {
      this.handle = m._csjs_field_new();
      if (!this.handle) throw new OutOfMemoryError(8, 'crowdsteer: out of memory');
    }
    _live() {
      if (!this.handle) throw new TypeError('crowdsteer: the field was freed');
      return this.handle;
    }
    _build(desc, region) {
      if (!desc || typeof desc !== 'object') throw new TypeError('desc must be an object');
      const { width, height, cell_size, origin = [0, 0], obstacles, cost, goal_x, goal_y,
        goal_regions } = desc;
      for (const [name, v] of Object.entries({ width, height }))
        if (!Number.isInteger(v) || v < 0 || v > 0xffffffff)
          throw new TypeError(`desc.${name} must be a non-negative integer`);
      if (typeof cell_size !== 'number') throw new TypeError('desc.cell_size must be a number');
      if (!Array.isArray(origin) || origin.length !== 2 || origin.some((v) => typeof v !== 'number'))
        throw new TypeError('desc.origin must be [x, y]');
      for (const [name, o] of Object.entries({ obstacles, goal_regions }))
        if (o !== undefined && o !== null && !(o instanceof Obstacles))
          throw new TypeError(`desc.${name} must be an Obstacles`);
      const goals = goal_x?.length ?? 0;
      if ((goal_y?.length ?? 0) !== goals) throw new TypeError('goal_x and goal_y must have the same length');
      if (cost !== undefined && cost !== null && cost.length !== width * height)
        throw new TypeError('desc.cost must hold width * height numbers');
      const [cx0, cy0, cx1, cy1] = region || [0, 0, 0, 0];
      for (const v of [cx0, cy0, cx1, cy1])
        if (!Number.isInteger(v) || v < 0 || v > 0xffffffff)
          throw new TypeError('region must be [cx0, cy0, cx1, cy1], non-negative integers');
      withFloats([cost, goal_x, goal_y], (c, gx, gy) =>
        check(m._csjs_field_build(this._live(), origin[0], origin[1], cell_size, width,
          height, obstacles ? obstacles._live() : 0, c, gx, gy, goals,
          goal_regions ? goal_regions._live() : 0, region ? 1 : 0, cx0, cy0, cx1, cy1)));
      return this;
    }
    /** Builds the field from { width, height, cell_size, origin: [x, y],
     *  obstacles, cost (width * height slownesses, row by row), goal_x,
     *  goal_y (goal points), goal_regions } (crowdsteer_field_desc). */
    build(desc) { return this._build(desc, null); }
    /** Rebuilds a built field after its obstacles or costs changed only in
     *  cells [cx0, cx1) x [cy0, cy1) (crowdsteer_field_rebuild). */
    rebuild(desc, region) {
      if (!Array.isArray(region) || region.length !== 4)
        throw new TypeError('region must be [cx0, cy0, cx1, cy1]');
      return this._build(desc, region);
    }
    _cell(cx, cy) {
      if (!Number.isInteger(cx) || !Number.isInteger(cy) || cx < 0 || cy < 0)
        throw new TypeError('cx and cy must be non-negative integers');
      if (!isU32(cx) || !isU32(cy))
        throw new ParameterError(4, 'crowdsteer: the cell is outside the field');
      const p = m._malloc(24);
      if (!p) throw new OutOfMemoryError(8, 'crowdsteer: out of memory');
      try {
        check(m._csjs_field_cell(this._live(), cx, cy, p, p + 8));
        const f = new Float32Array(buffer(), p + 8, 3);
        return { time: new Float64Array(buffer(), p, 1)[0], x: f[0], y: f[1], blocked: f[2] !== 0 };
      } finally {
        m._free(p);
      }
    }
    /** Cell (cx, cy)'s travel time (Infinity: blocked or unreachable). */
    time(cx, cy) { return this._cell(cx, cy).time; }
    /** Cell (cx, cy)'s unit direction { x, y, blocked }
     *  (crowdsteer_field_direction). */
    direction(cx, cy) {
      const { x, y, blocked } = this._cell(cx, cy);
      return { x, y, blocked };
    }
    get bytes() { return m._csjs_field_bytes(this._live()) >>> 0; }
    /** Frees the field; no crowd may follow it after. */
    free() {
      if (this.handle) m._csjs_field_free(this.handle);
      this.handle = 0;
    }
  }

  /** A pathway (crowdsteer_pathway_*): a polyline of points with a radius,
   *  which FOLLOW_PATH agents follow. x, y (and z in 3D): its points'
   *  coordinates; options { radius, cyclic }. */
  class Pathway {
    constructor(x, y, z = null, { radius = 0, cyclic = false } = {}) {
      const n = x?.length;
      const dims = z === null || z === undefined ? 2 : 3;
      if (!Number.isInteger(n) || y?.length !== n || (dims === 3 && z.length !== n) ||
          n > 0x1000000)
        throw new TypeError('x, y (and z) must be arrays of the same length');
      if (typeof radius !== 'number') throw new TypeError('radius must be a number');
      const status = m._malloc(4);
      if (!status) throw new OutOfMemoryError(8, 'crowdsteer: out of memory');
      try {
        this.handle = withFloats([x, y, dims === 3 ? z : null], (px, py, pz) =>
          m._csjs_pathway_new(dims, n, px, py, pz, radius, cyclic ? 1 : 0, status));
        if (!this.handle) check(new Int32Array(buffer(), status, 1)[0]);
      } finally {
        m._free(status);
      }
      this.dims = dims;
    }
    _live() {
      if (!this.handle) throw new TypeError('crowdsteer: the pathway was freed');
      return this.handle;
    }
    /** Its length along every segment (the closing one too when cyclic). */
    get length() { return m._csjs_pathway_length(this._live()); }
    get bytes() { return m._csjs_pathway_bytes(this._live()) >>> 0; }
    /** Frees the pathway; no crowd may follow it after. */
    free() {
      if (this.handle) m._csjs_pathway_free(this.handle);
      this.handle = 0;
    }
  }

  return {
    Crowd,
    Obstacles,
    Field,
    Pathway,
    build,
    /** The backend the behaviours run on: "simd128" or "scalar". */
    active_isa: () => m.UTF8ToString(m._csjs_isa_name()),
    force_isa: (name) => withString(String(name), (p) => check(m._csjs_force_isa(p))),
    random: (seed, agent, tick, axis) => m._csjs_random(u32(seed, 'seed'), u32(agent, 'agent'),
      u32(tick, 'tick'), u32(axis, 'axis')),
    version: () => m.UTF8ToString(m._csjs_version()),
    /** The module's memory now (views over an older buffer are detached). */
    memory_buffer: buffer,
  };
}
