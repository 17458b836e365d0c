// Type declarations of the crowdsteer npm package (src/index.js).

export declare const SEEK: 0, FLEE: 1, ARRIVE: 2, LEAVE: 3, PURSUIT: 4, EVADE: 5, WANDER: 6;
export declare const SEPARATION: 7, COHESION: 8, ALIGNMENT: 9, FOLLOW_FIELD: 10,
  FOLLOW_PATH: 11, CONTAIN: 12;
export declare const BOUNDS_SPHERE: 0, BOUNDS_BOX: 1;
export declare const BLEND: 0, PRIORITY: 1;
export declare const OVERWRITE: 0, ACCUMULATE: 1;
export declare const REPORT_CROWDED: 1, REPORT_WALL: 2, REPORT_INSIDE: 4;
export declare const PARAM_FIELDS: readonly string[];

/** crowdsteer_params' uniform fields (C names); an unset or 0 field is its default. */
export interface Params {
  max_speed?: number; max_force?: number; mass?: number; dt?: number;
  time_to_target?: number; target_radius?: number; slowing_radius?: number;
  panic_radius?: number; danger_radius?: number; escape_radius?: number;
  max_prediction?: number; wander_radius?: number; wander_distance?: number; jitter?: number;
}

/** Where and how a behaviour writes the crowd's steering (sx, sy, sz). */
export interface OutputOptions {
  mode?: typeof OVERWRITE | typeof ACCUMULATE;
  weight?: number;
  begin?: number;
  end?: number;
}

export interface Neighbours { radius?: number; max_neighbours?: number; }

/** A containing region (crowdsteer_bounds); points are 2 or 3 numbers. */
export interface Bounds {
  shape?: typeof BOUNDS_SPHERE | typeof BOUNDS_BOX;
  centre?: number[]; radius?: number;
  box_min?: number[]; box_max?: number[];
  prediction?: number;
}

export interface StepBehaviour {
  behaviour: number;
  target?: Target;
  params?: Params;
  weight?: number;
  neighbours?: Neighbours;
  /** CONTAIN: its region (required). */
  bounds?: Bounds;
  /** FOLLOW_FIELD: the built field every agent follows (required). */
  field?: Field;
  /** FOLLOW_PATH: the pathway every agent follows (required), and how. */
  path?: Pathway;
  follow?: PathFollow;
}

/** How agents follow a pathway (crowdsteer_path_follow's uniform fields). */
export interface PathFollow {
  /** 1: from its first point on, -1: backwards (default 1). */
  direction?: 1 | -1;
  prediction_time?: number;
  lead_distance?: number;
}

/** A navigation field's description (crowdsteer_field_desc). */
export interface FieldDesc {
  width: number;
  height: number;
  cell_size: number;
  origin?: [number, number];
  obstacles?: Obstacles;
  /** width * height slownesses (finite, >= 1), row by row; none: 1 everywhere. */
  cost?: ArrayLike<number>;
  goal_x?: ArrayLike<number>;
  goal_y?: ArrayLike<number>;
  goal_regions?: Obstacles;
}

/** ORCA as a step's last stage (crowdsteer_avoidance's fields). */
export interface Avoidance {
  radius?: number;
  time_horizon?: number;
  obstacle_time_horizon?: number;
  /** Who each agent avoids (a grid with cells this wide is built by the
   *  step); none: obstacles only. */
  neighbours?: Neighbours;
  obstacles?: Obstacles;
}

export interface StepOptions {
  integrator?: Params;
  avoidance?: Avoidance;
  /** [box_min, box_max]: the new positions wrap around in this box, last. */
  wrap?: [number[], number[]];
  combine?: typeof BLEND | typeof PRIORITY;
  priority_threshold?: number;
  mask?: boolean;
  tile_size?: number;
  seed?: number;
  tick?: number;
  begin?: number;
  end?: number;
}

/** A library status other than OK; `status` is its crowdsteer_status value. */
export declare class Error extends globalThis.Error { status: number; }
export declare class NullPointerError extends Error {}
export declare class DimsError extends Error {}
export declare class RangeError extends Error {}
export declare class ParameterError extends Error {}
export declare class AgentIndexError extends Error {}
export declare class UnknownIsaError extends Error {}
export declare class UnsupportedIsaError extends Error {}
export declare class OutOfMemoryError extends Error {}
export declare class GridError extends Error {}
export declare class AlignmentError extends Error {}
export declare class OverlapError extends Error {}
export declare class GeometryError extends Error {}
export declare class GoalError extends Error {}

export declare class Target {
  readonly kind: number;
  static point(point: ArrayLike<number>, velocity?: ArrayLike<number>): Target;
  static agent(index: number): Target;
}

/**
 * A crowd in the module's memory. Its arrays are views of that memory:
 * read them again (crowd.px, ...) after anything that may allocate
 * (new Crowd, grid_build, a step's first use of its workspace, new or
 * built Obstacles, Field or Pathway: docs/web.md lists them), since the
 * memory may have grown and older views are then detached (length 0).
 * Calls on a warm crowd allocate nothing.
 */
export interface Crowd {
  readonly handle: number;
  readonly count: number;
  readonly dims: 2 | 3;
  readonly px: Float32Array; readonly py: Float32Array; readonly pz: Float32Array;
  readonly vx: Float32Array; readonly vy: Float32Array; readonly vz: Float32Array;
  readonly sx: Float32Array; readonly sy: Float32Array; readonly sz: Float32Array;
  readonly wx: Float32Array; readonly wy: Float32Array; readonly wz: Float32Array;
  readonly mask: Uint32Array;
  /** REPORT_* bits of each agent after a step with avoidance. */
  readonly report: Uint32Array;
  /** Frees the crowd's memory (again: nothing); every later call throws TypeError. */
  free(): void;
  seek(target: Target, params?: Params, options?: OutputOptions): this;
  flee(target: Target, params?: Params, options?: OutputOptions): this;
  arrive(target: Target, params?: Params, options?: OutputOptions): this;
  leave(target: Target, params?: Params, options?: OutputOptions): this;
  pursuit(target: Target, params?: Params, options?: OutputOptions): this;
  evade(target: Target, params?: Params, options?: OutputOptions): this;
  wander(params?: Params, options?: OutputOptions & { seed?: number; tick?: number }): this;
  contain(bounds: Bounds, params?: Params, options?: OutputOptions): this;
  wrap(box_min: number[], box_max: number[], options?: { begin?: number; end?: number }): this;
  grid_build(cell_size: number, options?: { positions_only?: boolean }): this;
  separation(neighbours: Neighbours, params?: Params, options?: OutputOptions): this;
  cohesion(neighbours: Neighbours, params?: Params, options?: OutputOptions): this;
  alignment(neighbours: Neighbours, params?: Params, options?: OutputOptions): this;
  follow_field(field: Field, params?: Params, options?: OutputOptions): this;
  follow_path(path: Pathway, follow?: PathFollow, params?: Params, options?: OutputOptions): this;
  integrate(params?: Params, options?: { begin?: number; end?: number }): this;
  step(behaviours: StepBehaviour[], options?: StepOptions): this;
  hash(): string;
}

/** A static obstacle set: counter-clockwise polygons and walls (2 vertices). */
export interface Obstacles {
  readonly handle: number;
  readonly edge_count: number;
  readonly bytes: number;
  add(x: ArrayLike<number>, y: ArrayLike<number>): this;
  build(cell_size?: number): this;
  inside(x: number, y: number): boolean;
  free(): void;
}

/** A navigation field: travel times to the nearest goal and directions. */
export interface Field {
  readonly handle: number;
  readonly bytes: number;
  build(desc: FieldDesc): this;
  /** After obstacles or costs changed only in [cx0, cx1) x [cy0, cy1). */
  rebuild(desc: FieldDesc, region: [number, number, number, number]): this;
  /** Infinity where blocked or unreachable. */
  time(cx: number, cy: number): number;
  direction(cx: number, cy: number): { x: number; y: number; blocked: boolean };
  free(): void;
}

/** A pathway: a polyline of points with a radius. */
export interface Pathway {
  readonly handle: number;
  readonly dims: 2 | 3;
  readonly length: number;
  readonly bytes: number;
  free(): void;
}

export interface Crowdsteer {
  Crowd: { new (count: number, dims?: 2 | 3): Crowd };
  Obstacles: { new (): Obstacles };
  Field: { new (): Field };
  Pathway: {
    new (x: ArrayLike<number>, y: ArrayLike<number>, z?: ArrayLike<number> | null,
      options?: { radius?: number; cyclic?: boolean }): Pathway;
  };
  /** Which WebAssembly build was loaded. */
  build: 'simd' | 'scalar';
  active_isa(): string;
  force_isa(name: string): void;
  random(seed: number, agent: number, tick: number, axis: number): number;
  version(): string;
  memory_buffer(): ArrayBuffer;
}

export declare function simdSupported(): boolean;
export declare function init(options?: { simd?: boolean }): Promise<Crowdsteer>;
