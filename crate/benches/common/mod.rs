//! Shared by the native benchmarks: summary statistics and a deterministic text generator.
//! Each benchmark prints one JSON object on stdout; `scripts/bench` collects them.

use std::time::Instant;

/// Median and 95th percentile (nearest rank) of `samples`.
pub(crate) fn summary(samples: &[f64]) -> serde_json::Value {
    let mut sorted: Vec<f64> = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    let rank = |q: f64| -> f64 {
        if sorted.is_empty() {
            return f64::NAN;
        }
        let index = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len()) - 1;
        sorted.get(index).copied().unwrap_or(f64::NAN)
    };
    serde_json::json!({
        "median": rank(0.5),
        "p95": rank(0.95),
        "min": sorted.first().copied().unwrap_or(f64::NAN),
        "max": sorted.last().copied().unwrap_or(f64::NAN),
        "n": sorted.len(),
    })
}

/// Seconds `f` takes, and what it returned.
pub(crate) fn timed<T>(f: impl FnOnce() -> T) -> (f64, T) {
    let started = Instant::now();
    let value = f();
    (started.elapsed().as_secs_f64(), value)
}

/// A small deterministic generator (xorshift64*), so every run measures the same text.
#[derive(Debug)]
pub(crate) struct Rng(u64);

impl Rng {
    /// Seeded generator.
    pub(crate) fn new(seed: u64) -> Self {
        Self(seed.max(1))
    }

    /// Next value in `0..n`.
    pub(crate) fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n.max(1)
    }
}

/// Lines of chat prose and code, as a long ChatGPT conversation has: markdown, code with braces
/// and quotes, and mentions of the protocol's prefixes that are not records.
pub(crate) const PROSE: &[&str] = &[
    "The quick brown fox jumps over the lazy dog, and then it explains why in three short points.",
    "- Check the form's **email** field first; if it is empty, type the address and press Tab.",
    "    const result = items.filter((item) => item.enabled && item.name.includes(\"save\"));",
    "In the protocol, lines such as BAI_ACTION must stand alone; inline mentions like this one are not records.",
    "```json",
    "{\"name\": \"example\", \"values\": [1, 2, 3], \"nested\": {\"ok\": true}}",
    "```",
    "| Column | Value |",
    "Sure! Here is a summary of what the page shows: a header, a navigation bar, and a sign-in form.",
    "",
    "## Next steps",
    "1. Open the settings page.  2. Find the \"Notifications\" toggle.  3. Turn it off.",
];
