"""A float64 NumPy model of seek, flee, arrive and the integrator, written from
docs/behaviours.md, to check the binding against the documented formulas."""
import numpy as np


def length(v):
    return np.sqrt(sum(c * c for c in v))


def normalize(v):
    n = length(v)
    safe = np.where(n > 0, n, 1.0)
    return [np.where(n > 0, c / safe, 0.0) for c in v]


def heading(v):
    n = length(v)
    h = normalize(v)
    h[0] = np.where(n > 0, h[0], 1.0)
    return h


def truncate(v, m):
    n = length(v)
    factor = np.where(n > m, m / np.where(n > 0, n, 1.0), 1.0)
    return [c * factor for c in v]


def steer(desired, vel, time_to_target):
    return [(d - v) / time_to_target for d, v in zip(desired, vel)]


def seek(pos, vel, target, max_speed, time_to_target=1.0):
    d = normalize([t - p for t, p in zip(target, pos)])
    return steer([c * max_speed for c in d], vel, time_to_target)


def flee(pos, vel, target, max_speed, panic_radius=np.inf, time_to_target=1.0):
    d = [p - t for p, t in zip(pos, target)]
    dist = length(d)
    safe = np.where(dist > 0, dist, 1.0)
    h = heading(vel)
    away = [np.where(dist > 0, c / safe, hc) for c, hc in zip(d, h)]
    s = steer([a * max_speed for a in away], vel, time_to_target)
    return [np.where(dist > panic_radius, 0.0, c) for c in s]


def arrive(pos, vel, target, max_speed, target_radius=0.0, slowing_radius=0.0,
           time_to_target=1.0):
    d = [t - p for t, p in zip(target, pos)]
    dist = length(d)
    safe = np.where(dist > 0, dist, 1.0)
    speed = np.where(dist < slowing_radius,
                     max_speed * dist / np.where(slowing_radius > 0, slowing_radius, 1.0),
                     max_speed)
    speed = np.where(dist <= target_radius, 0.0, speed)
    return steer([c / safe * speed for c in d], vel, time_to_target)


def integrate(pos, vel, steering, max_speed, max_force=np.inf, mass=1.0, dt=1.0):
    f = truncate(steering, max_force)
    v = truncate([vc + fc / mass * dt for vc, fc in zip(vel, f)], max_speed)
    return [p + vc * dt for p, vc in zip(pos, v)], v
