"""Runs timed in turns (benchmarks.timing.measure_alternating), as W2's target pairs them."""

from __future__ import annotations

from benchmarks.timing import measure_alternating


def test_runs_take_turns_with_the_first_one_rotating_after_one_warm_up_each():
    calls = []
    runs = {name: (lambda name=name: calls.append(name) or name) for name in "abc"}
    timed = measure_alternating(runs, repeats=4)
    assert calls[:3] == ["a", "b", "c"]  # the warm-ups, untimed
    assert calls[3:] == ["a", "b", "c", "b", "c", "a", "c", "a", "b", "a", "b", "c"]
    for name in "abc":
        samples, last = timed[name]
        assert samples.n == 4 and last == name and not samples.note


def test_a_budget_cuts_only_its_own_runs_repeats(monkeypatch):
    clock = iter(range(1000))
    monkeypatch.setattr("benchmarks.timing.time.perf_counter", lambda: float(next(clock)))
    # Every call takes one tick of this clock: 1 s a run.
    timed = measure_alternating({"ours": lambda: None, "slow peer": lambda: None,
                                 "slower peer": lambda: None}, repeats=5,
                                budgets_s={"slow peer": 2.5, "slower peer": 0.5})  # fmt: skip
    assert timed["ours"][0].n == 5 and not timed["ours"][0].note
    assert timed["slow peer"][0].n == 2
    assert timed["slow peer"][0].note == "2 of 5 repeats (1.0 s each, 2 s budget)"
    assert timed["slower peer"][0].n == 1  # the warm-up itself, no repeats
    assert "no repeats" in timed["slower peer"][0].note


def test_measure_cuts_its_repeats_to_the_budget_with_the_same_notes(monkeypatch):
    from benchmarks.timing import measure

    clock = iter(range(1000))
    monkeypatch.setattr("benchmarks.timing.time.perf_counter", lambda: float(next(clock)))
    # One tick a run: 1 s.
    samples, _ = measure(lambda: None, repeats=5)
    assert samples.n == 5 and not samples.note
    samples, _ = measure(lambda: None, repeats=5, budget_s=2.5)
    assert samples.n == 2 and samples.note == "2 of 5 repeats (1.0 s each, 2 s budget)"
    samples, _ = measure(lambda: None, repeats=5, budget_s=0.5)
    assert samples.seconds == [1.0]
    assert samples.note == "one run of 1.0 s (> 0 s budget), no repeats"
    samples, _ = measure(lambda: None, repeats=3, warmup=0, budget_s=0.5)
    assert samples.n == 3  # no warm-up run, nothing to judge the budget by
