"""Triangle-pair sets the cross-check and the contact-log audit share (core.lab.pair_sets)."""

from __future__ import annotations

import numpy as np
import pytest

from core.lab import audit, crosscheck
from core.lab.pair_sets import checked_pairs, pairs_not_in, rows_not_in, unique_pairs


def test_unique_pairs_sorts_drops_repeats_and_keeps_int32():
    p = unique_pairs([(3, 1), (0, 2), (3, 1)])
    assert p.dtype == np.int32
    assert p.tolist() == [[0, 2], [3, 1]]
    assert unique_pairs([]).shape == (0, 2)


def test_pairs_not_in_subtracts_rows_and_an_empty_side_keeps_all():
    a = unique_pairs([(0, 0), (1, 2), (5, 7)])
    b = unique_pairs([(1, 2), (9, 9)])
    assert pairs_not_in(a, b).tolist() == [[0, 0], [5, 7]]
    assert rows_not_in(a, b).tolist() == [True, False, True]
    assert pairs_not_in(a, unique_pairs([])).tolist() == a.tolist()
    assert pairs_not_in(unique_pairs([]), a).shape == (0, 2)


def test_checked_pairs_names_the_input_and_the_body():
    assert checked_pairs([[1, 0], [1, 0]], "pairs", 2, 1).tolist() == [[1, 0]]
    with pytest.raises(ValueError, match=r"^'pairs'\[1\] names triangle 4 of A, which has 2 "):
        checked_pairs([[0, 0], [4, 0]], "'pairs'", 2, 1)
    with pytest.raises(ValueError, match="pairs must be integer triangle ids, got float64"):
        checked_pairs([[0.5, 0.0]], "pairs", 2, 1)


def test_cross_check_and_audit_share_one_pair_check():
    # The audit once imported the cross-check's private helpers; both now call the public one.
    assert crosscheck.checked_pairs is audit.checked_pairs is checked_pairs
    assert audit.pairs_not_in is crosscheck.pairs_not_in is pairs_not_in
