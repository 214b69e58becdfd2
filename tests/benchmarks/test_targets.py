"""Issue 15's PASS/MISS lines from made-up measurements (nothing is timed here)."""

from __future__ import annotations

from benchmarks import targets
from benchmarks.timing import Samples


def _ms(value: float) -> Samples:
    return Samples([value / 1e3])


def _size(w1_ours, w1_fcl, w2_ours, w2_fcl, w3_ours, warp_refit, warp_rebuild, memory=None):
    res = {
        "timings": {
            "w1_query": {"ours 2T": _ms(w1_ours), "ours 1T": _ms(99), "fcl-OBBRSS": _ms(w1_fcl)},
            "w3_refit_frame": {"ours 2T": _ms(w3_ours), "warp": _ms(warp_refit)},
            "w3_rebuild_frame": {"ours 2T": _ms(50), "warp": _ms(warp_rebuild)},
        },
        "w2": {"timings": {0.001: {"ours 2T": _ms(w2_ours), "fcl-OBBRSS": _ms(w2_fcl)}}},
    }
    if memory:
        res["memory"] = memory
    return res


def _lines(results, peers=("fcl-OBBRSS", "warp")) -> dict[str, str]:
    return {o.title: o.line() for o in targets.evaluate(results, list(peers))}


def test_every_target_gets_a_line_with_the_measured_ratio_and_verdict():
    memory = {"structure_bytes": 130, "mesh_bytes": 100, "peak_rss_bytes": 412 * 2**20}
    results = {
        "100k": _size(7.2, 10.0, 4.0, 10.0, 9.2, 11.2, 30.0, memory),
        "500k": _size(20.0, 40.0, 5.0, 10.0, 36.3, 80.0, 72.6),
    }
    lines = _lines(results)
    assert list(lines) == [
        "W1 100k", "W1 500k", "W2 100k", "W2 500k",
        "W3 100k", "W3 500k", "memory 100k", "memory 500k",
        "W1 100k vs MeshLib", "W1 500k vs MeshLib", "W3 100k vs MeshLib", "W3 500k vs MeshLib",
        "W1 build + query 100k", "W1 build + query 500k",
    ]
    assert lines["W1 100k"] == (
        "W1 100k: 0.72x fcl OBBRSS with the AABB (SAT lite) tree (midpoint split) "
        "(target <= 0.5x) MISS"
    )
    assert lines["W1 500k"] == (
        "W1 500k: 0.50x fcl OBBRSS with the AABB (SAT lite) tree (midpoint split) "
        "(target <= 0.5x) PASS"
    )
    assert lines["W2 100k"] == (
        "W2 100k: 0.40x fcl OBBRSS with the AABB (SAT lite) tree (midpoint split) "
        "(target <= 0.5x) PASS"
    )
    assert lines["W2 500k"] == (
        "W2 500k: 0.50x fcl OBBRSS with the AABB (SAT lite) tree (midpoint split) "
        "(target <= 0.5x) PASS"
    )
    # W3 takes warp's faster way through a frame: refit at 100k, rebuild at 500k.
    assert lines["W3 100k"] == "W3 100k: 0.82x warp CPU (target <= 0.5x) MISS"
    assert lines["W3 500k"] == "W3 500k: 0.50x warp CPU (target <= 0.5x) PASS"
    assert lines["memory 100k"] == (
        "memory 100k: trees + volumes = 1.30x the meshes (target <= 1x the meshes) MISS; "
        "peak resident 412 MiB"
    )
    assert lines["memory 500k"].endswith("memory not measured (target <= 1x the meshes) MISS")


def test_a_target_that_could_not_be_measured_is_a_miss_that_says_why():
    results = {"100k": _size(4.0, 10.0, 4.0, 10.0, 4.0, 10.0, 10.0)}
    lines = _lines(results, peers=("fcl-OBBRSS",))
    assert lines["W3 100k"] == "W3 100k: warp CPU not installed (target <= 0.5x) MISS"
    assert lines["W1 100k"].endswith("PASS")
    assert lines["W1 500k"] == "W1 500k: not run (size 500k not in this run) (target <= 0.5x) MISS"


def test_a_skipped_peer_is_a_miss():
    results = {"100k": _size(4.0, 10.0, 4.0, 10.0, 4.0, 10.0, 10.0)}
    results["100k"]["w2"]["timings"][0.001]["fcl-OBBRSS"] = Samples(note="skipped: slow")
    assert _lines(results)["W2 100k"] == (
        "W2 100k: fcl OBBRSS skipped or not measured (target <= 0.5x) MISS"
    )


def test_render_counts_the_passes_and_ends_with_one_line_per_target():
    results = {"100k": _size(4.0, 10.0, 6.0, 10.0, 4.0, 10.0, 10.0)}
    text = targets.render(targets.evaluate(results, ["fcl-OBBRSS", "warp"]))
    lines = text.splitlines()
    assert lines[0].startswith("performance targets (2 of 14 PASS")
    assert len(lines) == 1 + len(targets.TARGETS)
    assert all(line.endswith(("PASS", "MISS")) or "MiB" in line for line in lines[1:])


def test_w2_reads_the_best_kind_of_the_same_run_and_names_it():
    """The AABB tree's row (27.5 ms) is not the W2 target: the fastest kind is (the OBB tree)."""
    results = {
        "100k": _size(4.0, 10.0, 27.5, 10.0, 4.0, 10.0, 10.0),
        "500k": _size(4.0, 10.0, 104.0, 10.0, 4.0, 10.0, 10.0),
    }
    results["100k"]["w2"]["kinds"] = {
        "obb": _ms(5.1), "obb:OBB": _ms(4.9), "rss": _ms(7.0), "aabb": _ms(27.5),
    }  # fmt: skip
    results["500k"]["w2"]["kinds"] = {"obb": _ms(5.9), "obb:OBB": _ms(6.3), "rss": _ms(8.0)}
    lines = _lines(results)
    assert lines["W2 100k"] == (
        "W2 100k: 0.49x fcl OBBRSS with the OBB tree (OBBTree split) (target <= 0.5x) PASS"
    )
    assert lines["W2 500k"] == (
        "W2 500k: 0.59x fcl OBBRSS with the OBB tree (midpoint split) (target <= 0.5x) MISS"
    )


def test_w2_kind_not_measured_is_left_out_of_the_best():
    results = {"100k": _size(4.0, 10.0, 27.5, 10.0, 4.0, 10.0, 10.0)}
    results["100k"]["w2"]["kinds"] = {"obb": Samples(note="failed"), "rss": _ms(6.0)}
    assert _lines(results)["W2 100k"] == (
        "W2 100k: 0.60x fcl OBBRSS with the RSS (rounded rectangle) tree (midpoint split) "
        "(target <= 0.5x) MISS"
    )


def test_w1_reads_the_best_rigid_configuration_of_the_same_run():
    results = {"100k": _size(8.7, 10.3, 4.0, 10.0, 4.0, 10.0, 10.0)}
    results["100k"]["w1"] = {"kinds": {"aabb": _ms(8.7), "obb": _ms(4.6), "obb:OBB": _ms(5.5)}}
    assert _lines(results)["W1 100k"] == (
        "W1 100k: 0.45x fcl OBBRSS with the OBB tree (midpoint split) (target <= 0.5x) PASS"
    )


def _with_info(res, load_start, load_end, repeats):
    res["info"] = {"load_start": load_start, "load_end": load_end, "repeats": repeats}
    return res


def test_every_ratio_says_its_load_and_repeats_and_a_busy_idle_run_is_flagged():
    results = {"100k": _with_info(_size(4.0, 10.0, 4.0, 10.0, 9.2, 11.2, 30.0), 0.6, 0.9, 5),
               "500k": _with_info(_size(20.0, 40.0, 5.0, 10.0, 36.3, 80.0, 72.6), 1.2, 2.3, 3)}
    lines = _lines(results)
    assert lines["W3 100k"] == ("W3 100k: 0.82x warp CPU (target <= 0.5x; load 0.9, 5 repeats) "
                                "MISS")
    assert lines["W1 500k"].endswith("(target <= 0.5x; load 2.3, 3 repeats) PASS")
    text = targets.render(targets.evaluate(results, ["fcl-OBBRSS", "warp"]))
    warnings = [line for line in text.splitlines() if line.startswith("warning")]
    # Every 500k timing target was measured at load 2.3; no 100k one (0.9).
    assert len(warnings) == 3 and all("500k" in w and "load 2.3" in w for w in warnings)


def test_a_run_under_competing_load_puts_both_ratios_side_by_side():
    idle = {"100k": _with_info(_size(4.0, 10.0, 4.0, 10.0, 5.0, 11.0, 30.0), 0.5, 0.7, 5)}
    loaded = {"100k": _with_info(_size(4.0, 10.0, 4.0, 10.0, 9.9, 11.0, 30.0), 2.9, 3.1, 5)}
    outcomes = targets.evaluate(idle, ["fcl-OBBRSS", "warp"], loaded=loaded)
    titles = [o.title for o in outcomes]
    at = titles.index("W3 100k idle")
    assert titles[at + 1] == "W3 100k under load"
    assert outcomes[at].verdict == "PASS" and outcomes[at + 1].verdict == "MISS"
    assert outcomes[at + 1].line() == ("W3 100k under load: 0.90x warp CPU "
                                       "(target <= 0.5x; load 3.1, 5 repeats) MISS")
    # A load that the run started itself is not a warning.
    assert not targets.load_warnings(outcomes)
    assert "memory 100k" in titles  # memory once: no load changes it


def test_a_peer_left_out_with_skip_peers_is_named_as_left_out_not_as_missing():
    idle = {"100k": _with_info(_size(4.0, 10.0, 4.0, 10.0, 5.0, 11.0, 30.0), 0.5, 0.7, 5)}
    left_out = {o.title: o.line() for o in targets.evaluate(idle, ["fcl-OBBRSS"],
                                                            left_out=("war", "vtk"))}
    assert "warp CPU left out (--skip-peers)" in left_out["W3 100k"]
    assert left_out["W3 100k"].endswith("MISS")
    missing = {o.title: o.line() for o in targets.evaluate(idle, ["fcl-OBBRSS"])}
    assert "not installed" in missing["W3 100k"]


def test_the_competing_load_runs_while_the_block_runs_and_stops_after(tmp_path):
    from benchmarks.competing_load import check_processes, competing_load

    with competing_load(2, settle_s=0.0) as processes:
        assert len(processes) == 2 and all(p.poll() is None for p in processes)
    assert all(p.poll() is not None for p in processes)
    import pytest

    with pytest.raises(ValueError, match="--competing-load 65"):
        check_processes(65)


def test_meshlib_and_libigl_lines_compare_like_with_like():
    """MeshLib: our rigid query and refit frame against its own; libigl, whose call builds
    its tree, against our build + query."""
    res = _size(4.0, 10.0, 4.0, 10.0, 6.0, 11.0, 30.0)
    res["timings"]["w1_query"]["meshlib"] = _ms(16.0)
    res["timings"]["w1_query"]["libigl"] = _ms(50.0)
    res["timings"]["build"] = {"ours 2T": _ms(36.0)}
    res["timings"]["w3_refit_frame"]["meshlib"] = _ms(12.0)
    lines = _lines({"100k": res}, peers=("fcl-OBBRSS", "warp", "meshlib", "libigl"))
    assert lines["W1 100k vs MeshLib"].startswith("W1 100k vs MeshLib: 0.25x MeshLib")
    assert lines["W3 100k vs MeshLib"].startswith("W3 100k vs MeshLib: 0.50x MeshLib")
    assert lines["W1 build + query 100k"] == (
        "W1 build + query 100k: 0.80x libigl with the AABB tree built and queried "
        "(target <= 1x) PASS")
    missing = _lines({"100k": res}, peers=("fcl-OBBRSS", "warp"))
    assert missing["W1 build + query 100k"].startswith(
        "W1 build + query 100k: libigl not installed")


def _turns(ms: list[float], turns: str = "ours 2T / warp refit") -> Samples:
    return Samples([m / 1e3 for m in ms], turns=turns)


def test_sides_timed_in_turns_are_compared_round_by_round():
    # W2 100k under the competing load (a full run): each side's median is a median of two
    # modes, whole core or shared; each round's two calls saw the same one.
    ours, fcl = [23.8, 11.3, 23.8, 15.7, 23.5], [45.4, 24.5, 50.3, 49.4, 34.2]
    assert targets.paired_ratio(_turns(ours), _turns(fcl)) == sorted(
        o / f for o, f in zip(ours, fcl, strict=True))[2]  # fmt: skip
    assert round(targets.paired_ratio(_turns(ours), _turns(fcl)), 2) == 0.47
    # Timed in other turns, or in blocks: no rounds to pair.
    assert targets.paired_ratio(_turns(ours), _turns(fcl, "ours 2T / coal")) is None
    assert targets.paired_ratio(Samples([0.01]), Samples([0.02])) is None
    # A side cut short by its budget pairs the rounds both ran.
    assert targets.paired_ratio(_turns([1.0, 2.0, 9.0]), _turns([2.0, 4.0])) == 0.5

    res = _size(4.0, 10.0, 4.0, 10.0, 4.0, 10.0, 30.0)
    res["timings"]["w3_refit_frame"] = {"ours 2T": _turns([3.0, 7.0, 4.0, 7.5, 3.5]),
                                        "warp": _turns([8.0, 16.0, 8.0, 15.0, 8.0])}
    line = _lines({"100k": res})["W3 100k"]
    # Ratio of medians 4.0 / 8.0 = 0.50; rounds 0.375, 0.4375, 0.5, 0.5, 0.4375.
    assert line == ("W3 100k: 0.44x warp CPU (target <= 0.5x) PASS; timed in turns: median "
                    "of 5 rounds' ratios, ratio of medians 0.50x")
    # A size run with 3 repeats whose pair was timed in 5 rounds (the targets' least): the
    # line's repeats are the rounds behind its ratio.
    res["info"] = {"repeats": 3, "load_start": 1.0, "load_end": 1.2}
    line = _lines({"100k": res})["W3 100k"]
    assert line.startswith("W3 100k: 0.44x warp CPU (target <= 0.5x; load 1.2, 5 repeats) PASS")


def test_only_runs_timed_beside_another_are_marked_as_in_turns():
    from benchmarks.timing import measure_alternating

    timed = measure_alternating({"a": lambda: None, "b": lambda: None}, repeats=2)
    assert timed["a"][0].turns == timed["b"][0].turns == "a / b"
    alone = measure_alternating({"a": lambda: None}, repeats=2)
    assert alone["a"][0].turns == ""
    # A run whose warm-up alone spent its budget has one sample, from no round.
    cut = measure_alternating({"a": lambda: None, "slow": lambda: None}, repeats=2,
                              budgets_s={"slow": 0.0})  # fmt: skip
    assert cut["slow"][0].n == 1 and cut["slow"][0].turns == ""
    assert Samples([1.0], turns="a / b").as_json()["turns"] == "a / b"


def test_in_turns_the_best_configuration_is_the_one_with_the_lowest_paired_ratio():
    # W1 500k under load in a full run: the AABB tree had the lowest median (8.1 ms), but
    # its rounds against fcl's gave 0.51x; the OBB tree's rounds gave 0.39x.
    fcl = _turns([31.5, 32.4, 15.5], "w1")
    res = _size(4.0, 10.0, 4.0, 10.0, 4.0, 10.0, 30.0)
    res["timings"]["w1_query"]["fcl-OBBRSS"] = fcl
    res["w1"] = {"kinds": {"aabb": _turns([7.6, 16.6, 8.1], "w1"),
                           "obb": _turns([9.7, 14.4, 6.1], "w1"),
                           "obb:OBB": _turns([10.5, 14.9, 15.1], "w1")}}  # fmt: skip
    line = _lines({"500k": res})["W1 500k"]
    assert line.startswith("W1 500k: 0.39x fcl OBBRSS with the OBB tree (midpoint split) "
                           "(target <= 0.5x) PASS; timed in turns: median of 3 rounds' ratios")
