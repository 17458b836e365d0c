"""follow_path and Pathway from Python: the C library's results, its
validation as exceptions, and nothing written on error."""
import numpy as np
import pytest

import crowdsteer as cs


def crowd(px, py, vx, vy):
    arrays = [np.array(a, np.float32) for a in (px, py, vx, vy)]
    return cs.Agents(*arrays)


def test_pathway_queries():
    loop = cs.Pathway([0, 10, 10, 0], [0, 0, 10, 10], radius=1.0, cyclic=True)
    assert loop.length == 40.0 and loop.dims == 2 and loop.bytes > 0
    assert loop.point_at(42.0) == (2.0, 0.0)
    point, along = loop.nearest((5.0, 5.0))  # a tie: the lower segment
    assert point == (5.0, 0.0) and along == 5.0
    solid = cs.Pathway([0, 1], [0, 0], [0, 2], radius=0.5)
    assert solid.dims == 3


def test_pathway_validation():
    with pytest.raises(cs.Error):
        cs.Pathway([0, 0], [1, 1])  # a zero-length segment
    with pytest.raises(cs.Error):
        cs.Pathway([0], [1])  # one point
    with pytest.raises(cs.Error):
        cs.Pathway([0, 1], [0, 0], radius=-1.0)
    with pytest.raises(ValueError):
        cs.Pathway([0, 1, 2], [0, 0])


def test_follow_path_steers_back_and_leaves_followers_alone():
    path = cs.Pathway([0, 10], [0, 0], radius=1.0)
    agents = crowd([2, 2], [3, 0.5], [1, 1], [0, 0])
    steering = (np.full(2, 9, np.float32), np.full(2, 9, np.float32))
    follow = cs.PathFollow([path], prediction_time=1.0)
    cs.follow_path(agents, follow, cs.Params(max_speed=1.0), steering)
    # Off the path: seek (3, 0); on it, moving its way: nothing.
    d = np.array([1.0, -3.0]) / np.sqrt(10.0)
    assert steering[0][0] == pytest.approx(d[0] - 1.0, abs=1e-6)
    assert steering[1][0] == pytest.approx(d[1], abs=1e-6)
    assert steering[0][1] == 0.0 and steering[1][1] == 0.0
    # Backwards, per agent: the follower on the path turns round.
    follow.direction_per_agent = np.array([1, -1], np.float32)
    cs.follow_path(agents, follow, cs.Params(max_speed=1.0), steering)
    assert steering[0][1] < 0.0


def test_follow_path_validation_writes_nothing():
    path = cs.Pathway([0, 10], [0, 0], radius=1.0)
    agents = crowd([2, 2], [3, 0.5], [1, 1], [0, 0])
    steering = (np.full(2, 9, np.float32), np.full(2, 9, np.float32))
    bad = [cs.PathFollow([path], path=1),
           cs.PathFollow([path], direction_per_agent=np.array([1, 0.5], np.float32)),
           cs.PathFollow([path], prediction_time=-1.0),
           cs.PathFollow([cs.Pathway([0, 1], [0, 0], [0, 0])])]
    for follow in bad:
        with pytest.raises(cs.Error):
            cs.follow_path(agents, follow, None, steering)
        assert (steering[0] == 9).all() and (steering[1] == 9).all()
    with pytest.raises(TypeError):
        cs.follow_path(agents, cs.PathFollow(["not a pathway"]), None, steering)
    with pytest.raises(ValueError):
        cs.follow_path(agents, cs.PathFollow([path], path_per_agent=np.zeros(3, np.uint32)),
                       None, steering)
    # A bad number names its field (it once left no exception: SystemError).
    with pytest.raises(OverflowError, match=r"follow\.path must be"):
        cs.follow_path(agents, cs.PathFollow([path], path=-1), None, steering)
    with pytest.raises(OverflowError, match=r"follow\.direction must be"):
        cs.follow_path(agents, cs.PathFollow([path], direction=2**40), None, steering)
    with pytest.raises(TypeError, match=r"follow\.prediction_time"):
        cs.follow_path(agents, cs.PathFollow([path], prediction_time="1"), None, steering)
    assert (steering[0] == 9).all() and (steering[1] == 9).all()


def bits(arrays):
    return [a.tobytes() for a in arrays]


def path_crowd(rng, n):
    arrays = [rng.uniform(-3, 13, n), rng.uniform(-4, 6, n),
              rng.uniform(-1, 1, n), rng.uniform(-1, 1, n)]
    return [np.array(a, np.float32) for a in arrays]


def test_step_follow_path_equals_its_composition():
    rng = np.random.default_rng(12)
    n = 300
    zigzag = cs.Pathway([0, 4, 8, 12], [0, 3, 0, 3], radius=0.75)
    loop = cs.Pathway([0, 10, 10, 0], [-2, -2, 4, 4], radius=0.5, cyclic=True)
    follow = cs.PathFollow(
        [zigzag, loop], path_per_agent=rng.integers(0, 2, n).astype(np.uint32),
        direction_per_agent=rng.choice([1, -1], n).astype(np.float32),
        prediction_time=1.5, lead_distance=0.5)
    mask = rng.integers(0, 4, n).astype(np.uint32)
    weight = np.float32(rng.uniform(0, 2, n))
    integrator = cs.Params(max_speed=1.5, max_force=0.7)
    target = cs.Target.point((5, 8))
    behaviours = [cs.Behaviour(cs.FOLLOW_PATH, path=follow, weight=2.5),
                  cs.Behaviour(cs.SEEK, target, weight_per_agent=weight)]
    assert behaviours[0].path is follow and behaviours[1].path is None
    start = path_crowd(rng, n)
    agents = cs.Agents(*start)
    # The composition, one agent at a time; a behaviour's max_speed left at 0
    # is the integrator's in a step.
    params = cs.Params(max_speed=1.5)
    steering = (np.zeros(n, np.float32), np.zeros(n, np.float32))
    for b, e in ((i, i + 1) for i in range(n)):
        if mask[b] & 1:
            cs.follow_path(agents, follow, params, steering, mode=cs.ACCUMULATE,
                           weight=2.5, begin=b, end=e)
        if mask[b] & 2:
            cs.seek(agents, target, params, steering, mode=cs.ACCUMULATE,
                    weight_per_agent=weight, begin=b, end=e)
    followed = (mask & 1) == 1
    assert (steering[0][followed] != 0).sum() > n // 8  # off the paths, steered back
    expected = [a.copy() for a in start]
    cs.integrate(cs.Agents(*expected), steering, integrator)
    for threads in (1, 2):
        out = cs.Agents(*[np.zeros(n, np.float32) for _ in range(4)])
        cs.step(agents, behaviours, integrator=integrator, mask=mask, output=out,
                tile_size=64, threads=threads)
        assert bits([out.px, out.py, out.vx, out.vy]) == bits(expected)
        stepped = cs.Agents(*[a.copy() for a in start])  # in place too
        cs.step(stepped, behaviours, integrator=integrator, mask=mask, tile_size=32,
                threads=threads)
        assert bits([stepped.px, stepped.py, stepped.vx, stepped.vy]) == bits(expected)


def test_step_follow_path_errors_write_nothing():
    rng = np.random.default_rng(5)
    n = 40
    path = cs.Pathway([0, 10], [0, 0], radius=1.0)
    arrays = path_crowd(rng, n)
    before = bits(arrays)
    agents = cs.Agents(*arrays)
    mask = np.full(n, 3, np.uint32)
    mask[7] = 2  # agent 7 does not follow the path

    def step(follow):
        cs.step(agents, [cs.Behaviour(cs.FOLLOW_PATH, path=follow),
                         cs.Behaviour(cs.SEEK, cs.Target.point((1, 1)))],
                integrator=cs.Params(max_speed=1.0), mask=mask, threads=2, tile_size=8)

    index = np.zeros(n, np.uint32)
    index[30] = 1  # an agent that follows the path: past the one pathway
    for follow in (cs.PathFollow([path], path=1),
                   cs.PathFollow([path], path_per_agent=index)):
        with pytest.raises(cs.AgentIndexError):
            step(follow)
        assert bits(arrays) == before
    with pytest.raises(cs.ParameterError):
        step(cs.PathFollow([path], prediction_time=-1.0))
    with pytest.raises(cs.DimsError):
        step(cs.PathFollow([cs.Pathway([0, 1], [0, 0], [0, 0])]))
    with pytest.raises(TypeError, match=r"behaviours\[0\]\.path must be a crowdsteer"
                                        r"\.PathFollow"):
        step(None)
    with pytest.raises(TypeError, match=r"behaviours\[0\]\.path\.paths\[1\]"):
        step(cs.PathFollow([path, "not a pathway"]))
    with pytest.raises(OverflowError, match=r"behaviours\[0\]\.path\.path"):
        step(cs.PathFollow([path], path=-1))
    with pytest.raises(ValueError, match=r"behaviours\[0\]\.path\.direction_per_agent"):
        step(cs.PathFollow([path], direction_per_agent=np.ones(n + 1, np.float32)))
    # A per-agent array the step writes (the agents, in place): an overlap.
    with pytest.raises(cs.OverlapError, match=r"behaviours\[0\]\.path\.direction_per_agent"):
        step(cs.PathFollow([path], direction_per_agent=arrays[2]))
    assert bits(arrays) == before
    # A bad index only where the agent does not follow the path is no error.
    index[30], index[7] = 0, 5
    step(cs.PathFollow([path], path_per_agent=index))
    assert bits(arrays) != before
