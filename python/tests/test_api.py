"""The rest of the C API through the binding: targets, wander, accumulate,
ranges, a step against its composition, Crowd, ISA queries, Params, the GIL."""
import threading

import numpy as np
import pytest

import crowdsteer as cs
from conftest import empty_vectors, f32, random_agents


def bits(arrays):
    return b"".join(a.tobytes() for a in arrays)


@pytest.mark.parametrize("behaviour", [cs.pursuit, cs.evade])
def test_the_three_target_forms_agree(behaviour):
    rng = np.random.default_rng(4)
    n = 64
    agents, arrays = random_agents(rng, n)
    index = rng.integers(0, n, n).astype(np.uint32)
    gathered_p = tuple(f32(a[index]) for a in arrays[:2])
    gathered_v = tuple(f32(a[index]) for a in arrays[2:])
    by_index, by_arrays = empty_vectors(n), empty_vectors(n)
    params = cs.Params(max_prediction=5, panic_radius=50)
    behaviour(agents, cs.Target.agents(index), params, by_index)
    behaviour(agents, cs.Target.arrays(gathered_p, gathered_v), params, by_arrays)
    assert bits(by_index) == bits(by_arrays)
    one, point = empty_vectors(n), empty_vectors(n)
    same = np.full(n, 9, np.uint32)
    behaviour(agents, cs.Target.agents(same), params, one)
    target = cs.Target.point((arrays[0][9], arrays[1][9]), velocity=(arrays[2][9],
                                                                      arrays[3][9]))
    behaviour(agents, target, params, point)
    assert bits(one) == bits(point)


def test_ranges_split_anywhere_give_the_same_bits():
    agents, _ = random_agents(np.random.default_rng(5), 101, dims=3)
    whole, parts = empty_vectors(101, 3), empty_vectors(101, 3)
    target = cs.Target.point((1, 2, 3))
    cs.arrive(agents, target, cs.Params(slowing_radius=30), whole)
    for b, e in ((0, 13), (13, 14), (14, 101)):
        cs.arrive(agents, target, cs.Params(slowing_radius=30), parts, begin=b, end=e)
    assert bits(whole) == bits(parts)


def test_accumulate_blends_and_wander_updates_its_state():
    rng = np.random.default_rng(6)
    n = 50
    agents, _ = random_agents(rng, n)
    state = cs.WanderState(empty_vectors(n), seed=11)
    params = cs.Params(wander_radius=1, wander_distance=2, jitter=0.5)
    alone = empty_vectors(n)
    cs.wander(agents, state, params, alone)
    assert np.allclose(np.hypot(*state.direction), 1, atol=1e-6)
    state2 = cs.WanderState(empty_vectors(n), seed=11)
    blended = empty_vectors(n, fill=1.0)
    w = f32(rng.uniform(0, 1, n))
    cs.wander(agents, state2, params, blended, mode=cs.ACCUMULATE, weight_per_agent=w)
    assert bits(state.direction) == bits(state2.direction)
    for k in range(2):
        assert np.array_equal(blended[k], f32(1 + w * alone[k]))
    state.tick += 1
    assert state.tick == 1 and state.seed == 11
    with pytest.raises(OverflowError, match="WanderState.tick"):
        state.tick = -1


def test_step_equals_its_composition():
    rng = np.random.default_rng(8)
    n = 300
    agents, arrays = random_agents(rng, n)
    mask = rng.integers(0, 4, n).astype(np.uint32)
    weight = f32(rng.uniform(0, 2, n))
    integrator = cs.Params(max_speed=1.5, max_force=0.7)
    seek_target, flee_target = cs.Target.point((3, 4)), cs.Target.point((-5, 1))
    out = cs.Agents(*[np.zeros(n, np.float32) for _ in range(4)])
    cs.step(agents, [cs.Behaviour(cs.SEEK, seek_target),
                     cs.Behaviour(cs.FLEE, flee_target, cs.Params(panic_radius=40),
                                  weight_per_agent=weight)],
            integrator=integrator, mask=mask, output=out, tile_size=64, threads=2)
    steering = empty_vectors(n)
    # In a step, a behaviour's max_speed left at 0 is the integrator's.
    seek_params, flee_params = cs.Params(max_speed=1.5), cs.Params(panic_radius=40, max_speed=1.5)
    for b, e in ((i, i + 1) for i in range(n)):  # one agent at a time
        if mask[b] & 1:
            cs.seek(agents, seek_target, seek_params, steering, mode=cs.ACCUMULATE, begin=b,
                    end=e)
        if mask[b] & 2:
            cs.flee(agents, flee_target, flee_params, steering,
                    mode=cs.ACCUMULATE, weight_per_agent=weight, begin=b, end=e)
    cs.integrate(agents, steering, integrator)
    assert bits(arrays) == bits([out.px, out.py, out.vx, out.vy])


def test_crowd_double_buffers_and_views():
    crowd = cs.Crowd(1000, dims=3)
    first = crowd.agents
    crowd.px[:] = np.linspace(-10, 10, 1000, dtype=np.float32)
    seek = [cs.Behaviour(cs.SEEK, cs.Target.point((0, 0, 5)))]
    crowd.step(seek, integrator=cs.Params(max_speed=0.5))
    assert crowd.agents is not first and crowd.next_agents is first
    assert crowd.px.dtype == np.float32 and crowd.px.flags.c_contiguous
    assert np.all(np.hypot(np.hypot(crowd.vx, crowd.vy), crowd.vz) <= 0.5 * (1 + 1e-6))
    crowd.step(seek)
    assert crowd.agents is first
    with pytest.raises(cs.RangeError):
        crowd.step(seek, end=1001)
    assert crowd.agents is first  # no swap on error
    with pytest.raises(ValueError):
        cs.Crowd(10, dims=4)


def test_isa_queries_and_forcing():
    names = [cs.isa_name(i) for i in range(cs.ISA_COUNT)]
    assert names == ["scalar", "sse4", "avx2", "avx512", "neon", "simd128"]
    assert [cs.isa_from_name(n) for n in names] == list(range(cs.ISA_COUNT))
    assert cs.isa_supported("scalar") and not cs.isa_supported("no-such-isa")
    cs.force_isa("scalar")
    assert cs.active_isa() == "scalar"
    cs.force_isa(cs.supported_isas()[-1])
    assert cs.active_isa() == cs.supported_isas()[-1]
    assert cs.step_max_threads() >= 1
    assert cs.version() == 10000 * int(cs.__version__.split(".")[0]) + 100 * int(
        cs.__version__.split(".")[1]) + int(cs.__version__.split(".")[2])
    assert cs.random(1, 2, 3, 0) == cs.random(1, 2, 3, 0) and -1 <= cs.random(1, 2, 3, 0) < 1


def test_params_fields_and_replace():
    speeds = np.ones(4, np.float32)
    p = cs.Params(max_speed=2, max_speed_per_agent=speeds)
    assert p.max_speed == 2.0 and p.max_speed_per_agent is speeds and p.mass == 0.0
    q = p.replace(max_speed=3, max_speed_per_agent=None)
    assert (p.max_speed, q.max_speed, q.max_speed_per_agent) == (2.0, 3.0, None)
    assert set(cs.PARAM_FIELDS) >= {"max_speed", "jitter"} and \
        "mass_per_agent" in cs.PARAM_ARRAY_FIELDS
    assert q.fields() == {"max_speed": 3.0}
    with pytest.raises(TypeError, match="max_sped"):
        cs.Params(max_sped=1)
    with pytest.raises(TypeError, match="max_speed"):
        cs.Params(max_speed="fast")
    with pytest.raises(AttributeError):
        p.max_speed = 1  # immutable: use replace


def test_the_gil_is_released_during_calls():
    """While one thread is inside a long library call, another runs Python."""
    crowd = cs.Crowd(1 << 20)
    crowd.px[:] = np.arange(1 << 20, dtype=np.float32)
    behaviours = [cs.Behaviour(cs.SEEK, cs.Target.point((0, 0))),
                  cs.Behaviour(cs.WANDER, params=cs.Params(wander_radius=1, jitter=1),
                               wander=cs.WanderState(empty_vectors(1 << 20)))]
    done = threading.Event()
    ticks = []

    def work():
        for _ in range(20):
            crowd.step(behaviours, threads=1)
        done.set()

    worker = threading.Thread(target=work)
    worker.start()
    while not done.is_set():
        ticks.append(1)  # only runs while the worker does not hold the GIL
    worker.join()
    # 20 steps over a million agents take far longer than a switch interval,
    # so a binding holding the GIL would leave this thread few iterations.
    assert len(ticks) > 10000


def test_stubs_declare_every_public_name():
    """The .pyi stubs list everything the extension exports."""
    import ast
    import pathlib
    stub = pathlib.Path(cs._crowdsteer.__file__).with_name("_crowdsteer.pyi")
    tree = ast.parse(stub.read_text())
    declared = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            declared.add(node.name)
        elif isinstance(node, ast.AnnAssign):
            declared.add(node.target.id)
        elif isinstance(node, ast.Assign):
            declared.update(t.id for t in node.targets)
    exported = {n for n in dir(cs._crowdsteer) if not n.startswith("__")}
    assert exported - declared == set()


def test_target_attributes():
    t = cs.Target.point((1, 2), velocity=(3, 4))
    assert (t.kind, t.point_position, t.point_velocity) == (cs.TARGET_POINT, (1.0, 2.0, 0.0),
                                                            (3.0, 4.0, 0.0))
    a = cs.Target.arrays((np.zeros(3, np.float32), np.ones(3, np.float32)))
    assert a.kind == cs.TARGET_ARRAYS and len(a.position) == 2 and a.velocity is None
    index = np.zeros(3, np.uint32)
    assert cs.Target.agents(index).index is index


@pytest.mark.parametrize("behaviour", [cs.pursuit, cs.evade])
def test_one_agent_target_is_every_index_equal(behaviour):
    agents, _ = random_agents(np.random.default_rng(12), 40)
    params = cs.Params(max_prediction=5, panic_radius=50)
    one, every = empty_vectors(40), empty_vectors(40)
    behaviour(agents, cs.Target.agent(7), params, one)
    behaviour(agents, cs.Target.agents(np.full(40, 7, np.uint32)), params, every)
    assert bits(one) == bits(every) and cs.Target.agent(7).agent_index == 7
    with pytest.raises(cs.AgentIndexError):
        behaviour(agents, cs.Target.agent(40), params, one)


def test_per_agent_timing_parameters():
    agents, _ = random_agents(np.random.default_rng(13), 30)
    half = np.full(30, 0.5, np.float32)
    uniform, per_agent = empty_vectors(30), empty_vectors(30)
    cs.pursuit(agents, cs.Target.agent(3), cs.Params(time_to_target=0.5, max_prediction=2),
               uniform)
    cs.pursuit(agents, cs.Target.agent(3),
               cs.Params(time_to_target_per_agent=half,
                         max_prediction_per_agent=np.full(30, 2, np.float32)), per_agent)
    assert bits(uniform) == bits(per_agent)
    state = [cs.WanderState(empty_vectors(30), seed=5) for _ in range(2)]
    cs.wander(agents, state[0], cs.Params(wander_radius=1, jitter=0.25), uniform)
    cs.wander(agents, state[1], cs.Params(wander_radius=1,
                                          jitter_per_agent=np.full(30, 0.25, np.float32)),
              per_agent)
    assert bits(uniform) == bits(per_agent)


def test_behaviour_constants_follow_the_library_table():
    # SEEK .. ALIGNMENT are made from crowdsteer_behaviour_name at import.
    names = ["SEEK", "FLEE", "ARRIVE", "LEAVE", "PURSUIT", "EVADE", "WANDER",
             "SEPARATION", "COHESION", "ALIGNMENT", "FOLLOW_FIELD", "FOLLOW_PATH", "CONTAIN"]
    assert cs.BEHAVIOUR_COUNT == len(names)
    for value, name in enumerate(names):
        assert getattr(cs, name) == value
    assert not hasattr(cs, "UNKNOWN")
