# Type stubs of crowdsteer._crowdsteer, the C extension (see _crowdsteer.c).
# Per-agent arrays are 1-D C-contiguous numpy arrays of float32 (uint32 for
# target indices and masks) whose length is the agents' count.
from typing import (Dict, List, Optional, Sequence, SupportsFloat, SupportsIndex, Tuple,
                    Type, Union, overload)

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float32]
IndexArray = npt.NDArray[np.uint32]
Vectors = Union[Tuple[FloatArray, FloatArray], Tuple[FloatArray, FloatArray, FloatArray],
                List[FloatArray]]
# Integer arguments take anything with __index__ (NumPy integers too) within
# the C field's range, else OverflowError; float arguments take any real
# number that stays nonzero and finite in float32 (0, inf and NaN pass).
Int = SupportsIndex
Float = SupportsFloat
Isa = Union[str, Int]

SEEK: int
FLEE: int
ARRIVE: int
LEAVE: int
PURSUIT: int
EVADE: int
WANDER: int
SEPARATION: int
COHESION: int
ALIGNMENT: int
FOLLOW_FIELD: int
FOLLOW_PATH: int
CONTAIN: int
BEHAVIOUR_COUNT: int
TARGET_POINT: int
TARGET_ARRAYS: int
TARGET_AGENTS: int
TARGET_AGENT: int
OVERWRITE: int
ACCUMULATE: int
BLEND: int
PRIORITY: int
STEP_MAX_BEHAVIOURS: int
ISA_SCALAR: int
ISA_SSE4: int
ISA_AVX2: int
ISA_AVX512: int
ISA_NEON: int
ISA_SIMD128: int
ISA_COUNT: int
MAX_NEIGHBOURS: int
FORM_DEFAULT: int
FORM_REYNOLDS: int
BOUNDS_SPHERE: int
BOUNDS_BOX: int
REPORT_CROWDED: int
REPORT_WALL: int
REPORT_INSIDE: int
PARAM_FIELDS: Tuple[str, ...]
PARAM_ARRAY_FIELDS: Tuple[str, ...]

class Error(Exception):
    """A library call returned an error status; `status` is its number."""
    status: Optional[int]

class NullPointerError(Error): ...
class DimsError(Error): ...
class RangeError(Error): ...
class ParameterError(Error): ...
class AgentIndexError(Error): ...
class UnknownIsaError(Error): ...
class UnsupportedIsaError(Error): ...
class OutOfMemoryError(Error): ...
class GridError(Error): ...
class AlignmentError(Error): ...
class OverlapError(Error, ValueError):
    """A written array shares memory with another array of the call (status 11),
    found by the binding (naming both) or by the library."""
class GeometryError(Error): ...
class GoalError(Error): ...

errors_by_status: Dict[int, Type[Error]]

class Agents:
    """A batch of agents, used in place (crowdsteer_agents)."""
    def __init__(self, px: FloatArray, py: FloatArray, vx: FloatArray, vy: FloatArray,
                 pz: Optional[FloatArray] = ..., vz: Optional[FloatArray] = ...,
                 id: Optional[IndexArray] = ...) -> None: ...
    @property
    def px(self) -> FloatArray: ...
    @property
    def py(self) -> FloatArray: ...
    @property
    def pz(self) -> Optional[FloatArray]: ...
    @property
    def vx(self) -> FloatArray: ...
    @property
    def vy(self) -> FloatArray: ...
    @property
    def vz(self) -> Optional[FloatArray]: ...
    @property
    def id(self) -> Optional[IndexArray]: ...
    @property
    def count(self) -> int: ...
    @property
    def dims(self) -> int: ...
    def _pointers(self) -> Dict[str, int]: ...

class Params:
    """crowdsteer_params by field name; immutable (replace() copies)."""
    max_speed: float
    max_force: float
    mass: float
    dt: float
    time_to_target: float
    target_radius: float
    slowing_radius: float
    panic_radius: float
    danger_radius: float
    escape_radius: float
    max_prediction: float
    wander_radius: float
    wander_distance: float
    jitter: float
    max_speed_per_agent: Optional[FloatArray]
    max_force_per_agent: Optional[FloatArray]
    mass_per_agent: Optional[FloatArray]
    target_radius_per_agent: Optional[FloatArray]
    slowing_radius_per_agent: Optional[FloatArray]
    panic_radius_per_agent: Optional[FloatArray]
    danger_radius_per_agent: Optional[FloatArray]
    escape_radius_per_agent: Optional[FloatArray]
    wander_radius_per_agent: Optional[FloatArray]
    wander_distance_per_agent: Optional[FloatArray]
    time_to_target_per_agent: Optional[FloatArray]
    max_prediction_per_agent: Optional[FloatArray]
    jitter_per_agent: Optional[FloatArray]
    def __init__(self, **fields: Union[Float, FloatArray, None]) -> None: ...
    def replace(self, **fields: Union[Float, FloatArray, None]) -> "Params": ...
    def fields(self) -> Dict[str, Union[float, FloatArray]]: ...

class Target:
    """A behaviour's target (crowdsteer_target)."""
    @classmethod
    def point(cls, position: Sequence[Float],
              velocity: Optional[Sequence[Float]] = ...) -> "Target": ...
    @classmethod
    def arrays(cls, position: Vectors, velocity: Optional[Vectors] = ...) -> "Target": ...
    @classmethod
    def agents(cls, index: IndexArray) -> "Target": ...
    @classmethod
    def agent(cls, agent: Int) -> "Target": ...
    @property
    def kind(self) -> int: ...
    @property
    def point_position(self) -> Tuple[float, float, float]: ...
    @property
    def point_velocity(self) -> Tuple[float, float, float]: ...
    @property
    def position(self) -> Optional[Tuple[FloatArray, ...]]: ...
    @property
    def velocity(self) -> Optional[Tuple[FloatArray, ...]]: ...
    @property
    def index(self) -> Optional[IndexArray]: ...
    @property
    def agent_index(self) -> int: ...

class WanderState:
    """Wander's per-agent directions and generator (crowdsteer_wander_state)."""
    seed: int
    tick: int
    def __init__(self, direction: Vectors, seed: Int = ..., tick: Int = ...) -> None: ...
    @property
    def direction(self) -> Tuple[FloatArray, ...]: ...

class Behaviour:
    """One behaviour of a step (crowdsteer_step_behaviour); immutable."""
    kind: int
    target: Optional[Target]
    params: Optional[Params]
    wander: Optional[WanderState]
    weight: float
    weight_per_agent: Optional[FloatArray]
    neighbours: Optional["Neighbours"]
    field: Optional["FieldFollow"]
    path: Optional[object]  # a crowdsteer.PathFollow (as follow_path's follow)
    bounds: Optional[object]  # a crowdsteer.Bounds (as contain's bounds)
    def __init__(self, kind: Int, target: Optional[Target] = ...,
                 params: Optional[Params] = ..., wander: Optional[WanderState] = ...,
                 weight: Float = ..., weight_per_agent: Optional[FloatArray] = ...,
                 neighbours: Optional["Neighbours"] = ...,
                 field: Optional["FieldFollow"] = ...,
                 path: Optional[object] = ...,
                 bounds: Optional[object] = ...) -> None: ...

class Grid:
    """A reusable neighbour index (crowdsteer_grid)."""
    def __init__(self) -> None: ...
    def build(self, agents: Agents, cell_size: Float, *, table_size: Int = ...,
              group: Optional[IndexArray] = ..., threads: Int = ...,
              positions_only: bool = ...) -> None: ...
    def order(self) -> IndexArray: ...
    @property
    def bytes(self) -> int: ...

class Neighbours:
    """Who an agent sees (crowdsteer_neighbours); immutable."""
    grid: Optional[Grid]
    group: Optional[IndexArray]
    radius: float
    radius_per_agent: Optional[FloatArray]
    field_of_view: int
    cos_field_of_view: float
    cos_field_of_view_per_agent: Optional[FloatArray]
    max_neighbours: int
    neighbour_mask: int
    neighbour_mask_per_agent: Optional[IndexArray]
    form: int
    inner_radius: float
    def __init__(self, *, grid: Optional[Grid] = ..., group: Optional[IndexArray] = ...,
                 radius: Float = ..., radius_per_agent: Optional[FloatArray] = ...,
                 field_of_view: bool = ..., cos_field_of_view: Float = ...,
                 cos_field_of_view_per_agent: Optional[FloatArray] = ...,
                 max_neighbours: Int = ..., neighbour_mask: Int = ...,
                 neighbour_mask_per_agent: Optional[IndexArray] = ...,
                 form: int = ..., inner_radius: Float = ...) -> None: ...

class Obstacles:
    """A static 2D obstacle set (crowdsteer_obstacles): polygons (counter-clockwise)
    and two-vertex walls. add() and build() need it to themselves (else
    RuntimeError); a built set is read-only to any number of threads."""
    def __init__(self) -> None: ...
    def add(self, x: Union[FloatArray, Sequence[Float]],
            y: Union[FloatArray, Sequence[Float]]) -> None: ...
    def build(self, cell_size: Float = ...) -> None: ...
    @overload
    def inside(self, x: Float, y: Float) -> bool: ...
    @overload
    def inside(self, x: FloatArray, y: FloatArray) -> npt.NDArray[np.bool_]: ...
    @property
    def bytes(self) -> int: ...
    @property
    def edge_count(self) -> int: ...

class Field:
    """A navigation field (crowdsteer_field): travel time to the nearest goal
    over a grid of an obstacle set. build() needs it to itself (else
    RuntimeError); a built field is read-only to any number of threads."""
    def __init__(self) -> None: ...
    def build(self, width: Int, height: Int, cell_size: Float, *,
              origin: Sequence[Float] = ..., obstacles: Optional[Obstacles] = ...,
              cost: Optional[FloatArray] = ..., goal_x: Optional[FloatArray] = ...,
              goal_y: Optional[FloatArray] = ...,
              goal_regions: Optional[Obstacles] = ...) -> None: ...
    def rebuild(self, width: Int, height: Int, cell_size: Float, *,
                origin: Sequence[Float] = ..., obstacles: Optional[Obstacles] = ...,
                cost: Optional[FloatArray] = ..., goal_x: Optional[FloatArray] = ...,
                goal_y: Optional[FloatArray] = ...,
                goal_regions: Optional[Obstacles] = ...,
                region: Sequence[Int]) -> None: ...
    def times(self) -> npt.NDArray[np.float64]: ...
    def directions(self) -> npt.NDArray[np.float32]: ...
    @property
    def bytes(self) -> int: ...

class FieldFollow:
    """Which field each agent follows (crowdsteer_field_follow); immutable."""
    fields: tuple
    field_index: Optional[IndexArray]
    field: int
    def __init__(self, fields: Sequence[Field], field_index: Optional[IndexArray] = ...,
                 field: Int = ...) -> None: ...

def follow_field(agents: Agents, follow: FieldFollow, params: Optional[Params],
                 steering: Vectors, *, mode: Int = ..., weight: Float = ...,
                 weight_per_agent: Optional[FloatArray] = ..., begin: Int = ...,
                 end: Optional[Int] = ...) -> None: ...

class Avoidance:
    """Avoidance of agents and obstacles, ORCA (crowdsteer_avoidance); immutable."""
    radius: float
    radius_per_agent: Optional[FloatArray]
    time_horizon: float
    obstacle_time_horizon: float
    responsibility: float
    responsibility_per_agent: Optional[FloatArray]
    neighbours: Optional[Neighbours]
    obstacles: Optional[Obstacles]
    report: Optional[IndexArray]
    def __init__(self, *, radius: Float = ..., radius_per_agent: Optional[FloatArray] = ...,
                 time_horizon: Float = ..., obstacle_time_horizon: Float = ...,
                 responsibility: Float = ...,
                 responsibility_per_agent: Optional[FloatArray] = ...,
                 neighbours: Optional[Neighbours] = ..., obstacles: Optional[Obstacles] = ...,
                 report: Optional[IndexArray] = ...) -> None: ...

def avoid(agents: Agents, avoidance: Avoidance, params: Optional[Params],
          preferred: Vectors, velocity: Vectors, *, begin: Int = ...,
          end: Optional[Int] = ...) -> None: ...
def separation(agents: Agents, neighbours: Neighbours, params: Optional[Params],
               steering: Vectors, *, mode: Int = ..., weight: Float = ...,
               weight_per_agent: Optional[FloatArray] = ..., begin: Int = ...,
               end: Optional[Int] = ...) -> None: ...
def cohesion(agents: Agents, neighbours: Neighbours, params: Optional[Params],
             steering: Vectors, *, mode: Int = ..., weight: Float = ...,
             weight_per_agent: Optional[FloatArray] = ..., begin: Int = ...,
             end: Optional[Int] = ...) -> None: ...
def alignment(agents: Agents, neighbours: Neighbours, params: Optional[Params],
              steering: Vectors, *, mode: Int = ..., weight: Float = ...,
              weight_per_agent: Optional[FloatArray] = ..., begin: Int = ...,
              end: Optional[Int] = ...) -> None: ...
def seek(agents: Agents, target: Target, params: Optional[Params], steering: Vectors, *,
         mode: Int = ..., weight: Float = ..., weight_per_agent: Optional[FloatArray] = ...,
         begin: Int = ..., end: Optional[Int] = ...) -> None: ...
def flee(agents: Agents, target: Target, params: Optional[Params], steering: Vectors, *,
         mode: Int = ..., weight: Float = ..., weight_per_agent: Optional[FloatArray] = ...,
         begin: Int = ..., end: Optional[Int] = ...) -> None: ...
def arrive(agents: Agents, target: Target, params: Optional[Params], steering: Vectors, *,
           mode: Int = ..., weight: Float = ..., weight_per_agent: Optional[FloatArray] = ...,
           begin: Int = ..., end: Optional[Int] = ...) -> None: ...
def leave(agents: Agents, target: Target, params: Optional[Params], steering: Vectors, *,
          mode: Int = ..., weight: Float = ..., weight_per_agent: Optional[FloatArray] = ...,
          begin: Int = ..., end: Optional[Int] = ...) -> None: ...
def pursuit(agents: Agents, target: Target, params: Optional[Params], steering: Vectors, *,
            mode: Int = ..., weight: Float = ...,
            weight_per_agent: Optional[FloatArray] = ..., begin: Int = ...,
            end: Optional[Int] = ...) -> None: ...
def evade(agents: Agents, target: Target, params: Optional[Params], steering: Vectors, *,
          mode: Int = ..., weight: Float = ..., weight_per_agent: Optional[FloatArray] = ...,
          begin: Int = ..., end: Optional[Int] = ...) -> None: ...
def wander(agents: Agents, state: WanderState, params: Optional[Params], steering: Vectors,
           *, mode: Int = ..., weight: Float = ...,
           weight_per_agent: Optional[FloatArray] = ..., begin: Int = ...,
           end: Optional[Int] = ...) -> None: ...
def neighbour_count(agents: Agents, neighbours: Neighbours, *, begin: Int = ...,
                    end: Optional[Int] = ...) -> IndexArray: ...
def neighbour_nearest(agents: Agents, neighbours: Neighbours, k: Int, *,
                      begin: Int = ..., end: Optional[Int] = ...
                      ) -> Tuple[IndexArray, FloatArray, IndexArray]: ...
def integrate(agents: Agents, steering: Vectors, params: Optional[Params] = ..., *,
              begin: Int = ..., end: Optional[Int] = ..., smoothing: Float = ...,
              turn_limit: Float = ..., acceleration: Optional[Vectors] = ...) -> None: ...
def step(agents: Agents, behaviours: Sequence[Behaviour], *,
         integrator: Optional[Params] = ..., combine: Int = ...,
         priority_threshold: Float = ..., mask: Optional[IndexArray] = ...,
         output: Optional[Agents] = ..., snapshot: Optional[Agents] = ...,
         tile_size: Int = ..., threads: Int = ..., begin: Int = ...,
         end: Optional[Int] = ..., avoidance: Optional[Avoidance] = ...,
         smoothing: Float = ..., turn_limit: Float = ...,
         acceleration: Optional[Vectors] = ...,
         wrap: Optional[Tuple[Sequence[Float], Sequence[Float]]] = ...) -> None: ...
def active_isa() -> str: ...
def force_isa(isa: Isa) -> None: ...
def isa_supported(isa: Isa) -> bool: ...
def isa_name(isa: Int) -> str: ...
def isa_from_name(name: str) -> int: ...
def random(seed: Int, agent_index: Int, tick: Int, axis: Int) -> float: ...
def status_string(status: Int) -> str: ...
def step_max_threads() -> int: ...
def version() -> int: ...
def version_string() -> str: ...
def _last_written() -> Tuple[int, int, int, int, int, int]: ...
def _last_step_seconds() -> float: ...

class Pathway:
    def __init__(self, x: Sequence[Float], y: Sequence[Float],
                 z: Optional[Sequence[Float]] = ..., *, radius: Float = ...,
                 cyclic: bool = ...) -> None: ...
    def point_at(self, distance: Float) -> Tuple[float, ...]: ...
    def nearest(self, position: Sequence[Float]) -> Tuple[Tuple[float, ...], float]: ...
    @property
    def length(self) -> float: ...
    @property
    def bytes(self) -> int: ...
    @property
    def dims(self) -> int: ...

def contain(agents: Agents, bounds: object, params: Optional[Params], steering: Vectors,
            *, mode: Int = ..., weight: Float = ...,
            weight_per_agent: Optional[FloatArray] = ..., begin: Int = ...,
            end: Optional[Int] = ...) -> None: ...
def wrap(agents: Agents, box_min: Sequence[Float], box_max: Sequence[Float], *,
         begin: Int = ..., end: Optional[Int] = ...) -> None: ...
def periodic_ghosts(agents: Agents, count: Int, box_min: Sequence[Float],
                    box_max: Sequence[Float], reach: Float, id: IndexArray, *,
                    origin: Optional[IndexArray] = ..., group: Optional[IndexArray] = ...
                    ) -> int: ...
def follow_path(agents: Agents, follow: object, params: Optional[Params], steering: Vectors,
                *, mode: Int = ..., weight: Float = ...,
                weight_per_agent: Optional[FloatArray] = ..., begin: Int = ...,
                end: Optional[Int] = ...) -> None: ...
