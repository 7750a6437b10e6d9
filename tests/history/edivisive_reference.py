#!/usr/bin/env python3
"""E-divisive means, written from the paper, as the reference perfgate's C++ is checked
against (cross_check.py). Pure Python 3, standard library only.

D. S. Matteson and N. A. James, "A Nonparametric Approach for Multiple Change Point
Analysis of Multivariate Data", JASA 109 (505), 2014, section 2:

  E(X, Y; a) = 2/(mn) sum_ij |X_i - Y_j|^a - C(n,2)^-1 sum_{i<k} |X_i - X_k|^a
                                           - C(m,2)^-1 sum_{j<k} |Y_j - Y_k|^a
  Q(X, Y; a) = mn/(m+n) E(X, Y; a)

with X = Z[start:tau] and Y = Z[tau:kappa] inside one cluster; the estimate of the next
change point is the (tau, kappa) of largest Q over every cluster (section 2.2), and its
significance is a permutation test (section 2.3): the observations are permuted within
each cluster, the largest Q is found again, and p = (#{Q_r >= Q} + 1) / (R + 1).

Here alpha = 1 and the series are univariate. A one-point sample has no pair of its
own: its within term is the empty sum, 0 (the paper's C(1,2)^-1 has no value).
Sums of distances come from the two-dimensional prefix sums of the distance matrix,
so a rectangle of it costs four look-ups.
"""

import random


class Clusters:
    """The distance matrix of one series and its 2-D prefix sums."""

    def __init__(self, series):
        self.series = list(series)
        size = len(self.series)
        # prefix[a][b] = sum of |z_i - z_j| over i < a, j < b.
        self.prefix = [[0.0] * (size + 1) for _ in range(size + 1)]
        for a in range(size):
            row_total = 0.0
            above = self.prefix[a]
            here = self.prefix[a + 1]
            za = self.series[a]
            for b in range(size):
                row_total += abs(za - self.series[b])
                here[b + 1] = above[b + 1] + row_total

    def block(self, rows, cols):
        """Sum of |z_i - z_j| over i in range rows, j in range cols."""
        (r0, r1), (c0, c1) = rows, cols
        p = self.prefix
        return p[r1][c1] - p[r0][c1] - p[r1][c0] + p[r0][c0]

    def qhat(self, start, tau, kappa):
        """Q(Z[start:tau], Z[tau:kappa]; alpha = 1)."""
        n = tau - start
        m = kappa - tau
        between = 2.0 / (m * n) * self.block((start, tau), (tau, kappa))
        # The within sums over pairs i < k: half the square block (its diagonal is 0).
        within_x = self.block((start, tau), (start, tau)) / 2 / (n * (n - 1) / 2) if n > 1 else 0.0
        within_y = self.block((tau, kappa), (tau, kappa)) / 2 / (m * (m - 1) / 2) if m > 1 else 0.0
        return m * n / (m + n) * (between - within_x - within_y)

    def best_in_cluster(self, start, end):
        """(Q, tau, kappa) of largest Q with start < tau < kappa <= end; the first on ties
        (lowest tau, then lowest kappa). None for a cluster of fewer than 2 points."""
        best = None
        for tau in range(start + 1, end):
            for kappa in range(tau + 1, end + 1):
                q = self.qhat(start, tau, kappa)
                if best is None or q > best[0]:
                    best = (q, tau, kappa)
        return best

    def best_for_tau(self, start, tau, end):
        """Largest Q over kappa for a given split tau of the cluster [start, end)."""
        return max(self.qhat(start, tau, kappa) for kappa in range(tau + 1, end + 1))


def cluster_bounds(size, cuts):
    """The clusters [start, end) that the change points `cuts` leave."""
    edges = [0] + sorted(cuts) + [size]
    return [(edges[i], edges[i + 1]) for i in range(len(edges) - 1)]


def next_change_point(series, cuts):
    """(Q, tau, kappa) of the next change point given those in `cuts`: the best over
    every cluster, the first cluster on ties. None when no cluster can be split."""
    clusters = Clusters(series)
    best = None
    for start, end in cluster_bounds(len(series), cuts):
        candidate = clusters.best_in_cluster(start, end)
        if candidate is not None and (best is None or candidate[0] > best[0]):
            best = candidate
    return best


def reaches(part, observed_q):
    """Whether some split of one cluster has Q >= observed_q."""
    clusters = Clusters(part)
    size = len(part)
    return any(clusters.qhat(0, tau, kappa) >= observed_q
               for tau in range(1, size) for kappa in range(tau + 1, size + 1))


def permutation_pvalue(series, cuts, observed_q, permutations, seed, give_up_above=1.0):
    """The paper's permutation test of the next change point: the observations are
    shuffled within each cluster and the largest Q over every cluster is found again;
    a permutation counts when it reaches the observed Q. Once p can no longer fall
    below `give_up_above`, the count stops and the p-value so far (a lower bound,
    already above it) is returned."""
    rng = random.Random(seed)
    bounds = cluster_bounds(len(series), cuts)
    at_least = 0
    for _ in range(permutations):
        parts = []
        for start, end in bounds:
            part = series[start:end]
            rng.shuffle(part)
            parts.append(part)
        if any(len(part) >= 2 and reaches(part, observed_q) for part in parts):
            at_least += 1
            if (at_least + 1) / (permutations + 1) > give_up_above:
                break
    return (at_least + 1) / (permutations + 1)


def divisive(series, stages, permutations=99, seed=1):
    """E-divisive forced on for `stages` stages: per stage (tau, Q, permutation p)."""
    cuts = []
    found = []
    for stage in range(stages):
        best = next_change_point(series, cuts)
        if best is None:
            break
        q, tau, _ = best
        p = permutation_pvalue(series, cuts, q, permutations, seed + stage)
        found.append((tau, q, p))
        cuts.append(tau)
    return found


if __name__ == "__main__":
    import sys

    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        values = [float(w) for w in words[1:]]
        print(words[0], " ".join(f"{tau} {q:.17g} {p:.6g}" for tau, q, p in divisive(values, 3)))
