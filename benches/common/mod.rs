//! Timing shared by the benchmarks.

use std::time::{Duration, Instant};

/// The median time of `f` over at least `runs` runs and at least `min_time` in all.
pub fn median(runs: usize, min_time: Duration, mut f: impl FnMut()) -> Duration {
    let mut times = Vec::new();
    let start = Instant::now();
    while times.len() < runs || start.elapsed() < min_time {
        let t = Instant::now();
        f();
        times.push(t.elapsed());
    }
    times.sort();
    times[times.len() / 2]
}
