"""The time scale: measured on this machine, pinned by SPIELBAUM_TIME_SCALE, and
ended early only when the result can no longer change."""

import time

import pytest

from autograder import KitError
from autograder.grading import calibrate


def scripted(monkeypatch, runs):
    """`_sample` answers `runs` in turn, each after burning a little CPU time (the
    rounds are measured in CPU time); it records how many were asked for."""
    asked = []

    def sample():
        end = time.process_time() + 0.001
        while time.process_time() < end:
            pass
        asked.append(runs[min(len(asked), len(runs) - 1)])
        return asked[-1]

    monkeypatch.setattr(calibrate, "_sample", sample)
    return asked


def test_a_run_at_the_baseline_ends_the_measuring_with_scale_one(monkeypatch):
    base = calibrate.BASELINE_SECONDS
    asked = scripted(monkeypatch, [base * 2, base * 1.5, base * 0.9, base * 0.1])
    best, samples = calibrate._measure_here()
    assert best == base * 0.9 and len(asked) == 3
    assert samples == (best,)


def test_a_slow_machine_is_measured_in_full_rounds(monkeypatch):
    base = calibrate.BASELINE_SECONDS
    # One run 20% faster than all others, after the warm-up's: the two fastest never
    # agree, so every round is taken.
    asked = scripted(monkeypatch, [base * 3] * 40 + [base * 2.4] + [base * 3])
    best, samples = calibrate._measure_here()
    assert best == base * 2.4
    assert samples[:2] == (base * 2.4, base * 3)
    expected_runs = (calibrate.WARM_UP_SECONDS + calibrate.ROUNDS * calibrate.ROUND_SECONDS) / 0.001
    assert len(asked) >= 0.5 * expected_runs


def test_a_slow_machine_that_agrees_stops_after_one_round(monkeypatch):
    base = calibrate.BASELINE_SECONDS
    asked = scripted(monkeypatch, [base * 2])
    best, _ = calibrate._measure_here()
    assert best == base * 2
    rounds_of_two = (calibrate.WARM_UP_SECONDS + 2 * calibrate.ROUND_SECONDS) / 0.001
    assert len(asked) < rounds_of_two


def test_this_machine_is_measured_within_the_bounds(monkeypatch):
    monkeypatch.delenv("SPIELBAUM_TIME_SCALE", raising=False)
    calibrate.measure_scale.cache_clear()
    try:
        timing = calibrate.measure_scale()
    finally:
        calibrate.measure_scale.cache_clear()
    assert timing.source == "measured"
    assert 1.0 <= timing.scale <= calibrate.MAX_SCALE
    assert timing.samples and min(timing.samples) > 0


def test_the_scale_can_be_pinned_and_a_bad_pin_is_one_line(monkeypatch):
    calibrate.measure_scale.cache_clear()
    try:
        monkeypatch.setenv("SPIELBAUM_TIME_SCALE", "2.5")
        assert calibrate.measure_scale() == calibrate.Timing(2.5, "SPIELBAUM_TIME_SCALE")
        calibrate.measure_scale.cache_clear()
        monkeypatch.setenv("SPIELBAUM_TIME_SCALE", "0.5")
        assert calibrate.measure_scale().scale == 1.0       # never below 1
        calibrate.measure_scale.cache_clear()
        monkeypatch.setenv("SPIELBAUM_TIME_SCALE", "fast")
        with pytest.raises(KitError, match="is not a number"):
            calibrate.measure_scale()
    finally:
        calibrate.measure_scale.cache_clear()


def test_a_run_longer_than_a_round_is_still_measured(monkeypatch):
    """On a starved CPU one run can outlast a whole round: the first round then holds
    one run, and the measuring goes on instead of failing (a batch once stopped on it)."""
    base = calibrate.BASELINE_SECONDS
    monkeypatch.setattr(calibrate, "ROUND_SECONDS", 0.0)
    monkeypatch.setattr(calibrate, "WARM_UP_SECONDS", 0.0)
    asked = scripted(monkeypatch, [base * 3, base * 2, base * 2.1, base * 5])
    best, samples = calibrate._measure_here()
    assert best == base * 2 and len(asked) == 3       # rounds of one run each, until two agree
    assert samples == (base * 2, base * 2.1, base * 3)
