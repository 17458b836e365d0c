"""Arguments under an adversary: every integer argument out of its C field
raises OverflowError naming it (Neighbours' form was parsed without a
name), a float where an integer belongs TypeError naming it; and a Field's
directions() keep their bits whatever rounding mode the host thread is in
(the C query enters the library's mode: a zero component was -0 when the
host rounded down)."""
import ctypes
import ctypes.util
import platform

import numpy as np
import pytest

import crowdsteer as cs


@pytest.mark.parametrize("value", [2**31, -2**31 - 1, 2**64])
def test_form_out_of_int_range_names_the_field(value):
    with pytest.raises(OverflowError, match="form"):
        cs.Neighbours(radius=1.0, form=value)


def test_form_of_the_wrong_type_names_the_field():
    with pytest.raises(TypeError, match="form"):
        cs.Neighbours(radius=1.0, form=1.0)
    assert cs.Neighbours(radius=1.0, form=np.int64(cs.FORM_REYNOLDS)).form == 1


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"),
                    reason="FE_DOWNWARD's value is x86's")
def test_field_directions_in_a_host_rounding_down():
    libm = ctypes.CDLL(ctypes.util.find_library("m"))
    f = cs.Field()
    g = np.array([0.5], np.float32)
    f.build(4, 4, 1.0, goal_x=g, goal_y=g)
    want = f.directions()
    fe_downward = 0x400
    assert libm.fesetround(fe_downward) == 0
    try:
        got = f.directions()
    finally:
        libm.fesetround(0)
    assert got.tobytes() == want.tobytes()
    assert not np.signbit(want[want == 0]).any()
