// Summary statistics shared by the browser benchmarks (nearest-rank percentiles).

export function summary(samples) {
  const sorted = samples.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  const rank = (q) => (sorted.length ? sorted[Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length))) - 1] : null);
  return { median: rank(0.5), p95: rank(0.95), min: sorted[0] ?? null, max: sorted.at(-1) ?? null, n: sorted.length };
}

/** Ratio of two summaries' medians (a / b). */
export function ratio(a, b) {
  return a?.median && b?.median ? a.median / b.median : null;
}
