//! How soon a helper thread starts while the thread that started it keeps working: a thread
//! started as the standard library starts one, and one started with
//! `skelnorm::model::spawn_apart`, which moves itself off its starter's core (see
//! `src/model/apart.rs`). The starter works for 2 ms after each start; a helper that waits for
//! its starter's core starts only then. Run with `cargo bench --bench threads`.
#![allow(
    clippy::unwrap_used,
    clippy::print_stdout,
    reason = "a benchmark run by hand: a panic aborts it, and it prints its timings"
)]

use skelnorm::model::spawn_apart;
use std::time::{Duration, Instant};

/// Starts per way of starting, taken in turn.
const STARTS: usize = 60;
/// How long the starter works after each start.
const WORK: Duration = Duration::from_millis(2);

fn main() {
    let mut plain = Vec::with_capacity(STARTS);
    let mut apart = Vec::with_capacity(STARTS);
    for _ in 0..STARTS {
        plain.push(start_delay(false));
        apart.push(start_delay(true));
    }
    println!(
        "helper start delay while its starter works {} ms ({STARTS} starts each, taken in turn):",
        WORK.as_millis()
    );
    for (name, mut v) in [("std::thread", plain), ("spawn_apart", apart)] {
        v.sort_unstable();
        let us = |d: Duration| d.as_secs_f64() * 1e6;
        println!(
            "  {name:12} median {:7.1} µs   p25 {:7.1} µs   p75 {:7.1} µs   max {:7.1} µs   began after the work: {}",
            us(v[v.len() / 2]),
            us(v[v.len() / 4]),
            us(v[v.len() * 3 / 4]),
            us(v[v.len() - 1]),
            v.iter().filter(|&&d| d >= WORK).count()
        );
    }
}

/// The time from asking for a helper to its first instruction, its starter busy meanwhile.
fn start_delay(apart: bool) -> Duration {
    std::thread::sleep(Duration::from_millis(3));
    std::thread::scope(|s| {
        let asked = Instant::now();
        let started = move || Instant::now();
        let helper = if apart {
            spawn_apart(s, "bench helper", started).unwrap()
        } else {
            std::thread::Builder::new()
                .spawn_scoped(s, started)
                .unwrap()
        };
        while asked.elapsed() < WORK {
            std::hint::spin_loop();
        }
        helper.join().unwrap() - asked
    })
}
