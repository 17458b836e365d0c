"""Navigation fields and follow_field from Python: a field over a wall,
its times and directions as arrays, a rebuild with a full build's bits,
follow_field against the C library's rule on the cells, the same bits in a
step, per-agent fields, and bad arguments (their exceptions, nothing
written)."""
import numpy as np
import pytest

import crowdsteer as cs


def plan():
    o = cs.Obstacles()
    o.add([10.0, 10.0], [2.0, 18.0])  # a wall between the agents and the goal
    o.build()
    return o


def field_over(obstacles, gx=15.5, gy=10.5):
    f = cs.Field()
    f.build(20, 20, 1.0, obstacles=obstacles,
            goal_x=np.array([gx], np.float32), goal_y=np.array([gy], np.float32))
    return f


def test_times_and_directions():
    f = field_over(plan())
    t, d = f.times(), f.directions()
    assert t.shape == (20, 20) and t.dtype == np.float64
    assert d.shape == (2, 20, 20) and d.dtype == np.float32
    assert t[10, 15] == 0.0
    assert np.isinf(t[10, 9]) and np.isinf(t[10, 10])  # the wall's cells
    assert t[10, 8] > 7 + 8  # around the wall
    assert d[0, 10, 8] == 0.0 and d[1, 10, 8] != 0.0  # along it, not into it
    assert f.bytes >= 20 * 20 * 34


def test_rebuild_gives_a_full_build():
    shut, opened = cs.Obstacles(), cs.Obstacles()
    shut.add([10.0, 10.0], [0.0, 20.0])
    opened.add([10.0, 10.0], [0.0, 8.0])
    opened.add([10.0, 10.0], [12.0, 20.0])
    shut.build()
    opened.build()
    goals = dict(goal_x=np.array([15.5, 2.5], np.float32),
                 goal_y=np.array([10.5, 2.5], np.float32))
    part, full = cs.Field(), cs.Field()
    part.build(20, 20, 1.0, obstacles=shut, **goals)
    full.build(20, 20, 1.0, obstacles=opened, **goals)
    assert part.times().tobytes() != full.times().tobytes()
    part.rebuild(20, 20, 1.0, obstacles=opened, region=(8, 6, 12, 14), **goals)
    assert part.times().tobytes() == full.times().tobytes()
    assert part.directions().tobytes() == full.directions().tobytes()


def test_follow_field_and_step():
    f = field_over(plan())
    n = 50
    rng = np.random.default_rng(3)
    px = rng.uniform(-2, 22, n).astype(np.float32)
    py = rng.uniform(-2, 22, n).astype(np.float32)
    vx, vy = np.zeros(n, np.float32), np.zeros(n, np.float32)
    agents = cs.Agents(px, py, vx, vy)
    follow = cs.FieldFollow([f])
    sx, sy = np.empty(n, np.float32), np.empty(n, np.float32)
    cs.follow_field(agents, follow, cs.Params(max_speed=2.0), (sx, sy))
    d = f.directions()
    for i in range(n):
        cx, cy = int(np.floor(px[i])), int(np.floor(py[i]))
        if 0 <= cx < 20 and 0 <= cy < 20:
            assert sx[i] == d[0, cy, cx] * np.float32(2.0)
            assert sy[i] == d[1, cy, cx] * np.float32(2.0)
        else:
            assert sx[i] == 0 and sy[i] == 0
    # The step's composition: follow_field, then integrate.
    copy = [a.copy() for a in (px, py, vx, vy)]
    cs.integrate(agents, (sx, sy), cs.Params(max_speed=2.0))
    stepped = cs.Agents(*copy)
    cs.step(stepped, [cs.Behaviour(cs.FOLLOW_FIELD, field=follow)],
            integrator=cs.Params(max_speed=2.0))
    assert all(a.tobytes() == b.tobytes() for a, b in zip((px, py, vx, vy), copy))


def test_per_agent_fields_and_errors():
    o = plan()
    a, b = field_over(o), field_over(o, 2.5, 2.5)
    n = 4
    px = np.array([5, 5, 15, 15], np.float32)
    py = np.array([5, 15, 5, 15], np.float32)
    vx, vy = np.zeros(n, np.float32), np.zeros(n, np.float32)
    agents = cs.Agents(px, py, vx, vy)
    sx, sy = np.full(n, 7, np.float32), np.full(n, 7, np.float32)
    index = np.array([0, 1, 0, 1], np.uint32)
    cs.follow_field(agents, cs.FieldFollow([a, b], field_index=index), None, (sx, sy))
    one = [np.empty(n, np.float32) for _ in range(2)]
    cs.follow_field(agents, cs.FieldFollow([b]), None, one)
    assert sx[1] == one[0][1] and sy[3] == one[1][3]
    sx[:] = 7
    with pytest.raises(cs.AgentIndexError):
        cs.follow_field(agents, cs.FieldFollow([a, b], field_index=index + 1), None,
                        (sx, sy))
    with pytest.raises(cs.ParameterError):
        cs.follow_field(agents, cs.FieldFollow([a, b], field=2), None, (sx, sy))
    with pytest.raises(cs.GridError):
        cs.follow_field(agents, cs.FieldFollow([cs.Field()]), None, (sx, sy))
    with pytest.raises(TypeError):
        cs.FieldFollow([a, "not a field"])
    assert (sx == 7).all()
    f = cs.Field()
    with pytest.raises(cs.GoalError):  # a goal in the wall's cell
        f.build(20, 20, 1.0, obstacles=o, goal_x=np.array([9.5], np.float32),
                goal_y=np.array([10.5], np.float32))
    with pytest.raises(cs.ParameterError):
        f.build(0, 20, 1.0, goal_x=np.array([1], np.float32),
                goal_y=np.array([1], np.float32))
    with pytest.raises(cs.GridError):
        f.times()
