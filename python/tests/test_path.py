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
