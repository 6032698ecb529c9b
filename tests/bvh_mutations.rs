//! The stand-in for `cargo fuzz run read_bvh` where cargo-fuzz is not installed (it needs a
//! nightly compiler): the BVH reader runs over mutated files (truncations, byte flips, digit
//! changes, hostile counts, moved lines) and must return without a panic; a file that reads must
//! write and read back. `SKELNORM_BVH_MUTATIONS=1000000 cargo test --release --test
//! bvh_mutations -- --nocapture` runs a million; the default is 20,000.
#![allow(
    clippy::unwrap_used,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "test code: a panic is how a test fails, and output goes to the test log"
)]

mod common;

use skelnorm::bvh_io::{read, write, BvhOptions, BvhWriteOptions};

const SMALL: &str = "HIERARCHY
ROOT Hips
{
\tOFFSET 0 90 0
\tCHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
\tJOINT Left Leg
\t{
\t\tOFFSET 10 -45 0
\t\tCHANNELS 3 Xrotation Yrotation Zrotation
\t\tEnd Site
\t\t{
\t\t\tOFFSET 0 -45 0
\t\t}
\t}
\tJOINT Spine
\t{
\t\tOFFSET 0 10 0
\t\tCHANNELS 6 Yrotation Xposition Zrotation Yposition Xrotation Zposition
\t}
}
ROOT Prop
{
\tOFFSET 1 2 3
\tCHANNELS 3 Zrotation Yrotation Xrotation
}
MOTION
Frames: 3
Frame Time: 0.0333333
0 90 0 0 0 0 10 0 0 1 2 3 4 5 6 7 8 9
1 91 0 0 0 0 20 0 0 1 2 3 4 5 6 7 8 9
2 92 0 0 90 0 30 0 0 1 2 3 4 5 6 -170 8 179
";

/// xorshift64*: a small deterministic generator, so a failure can be replayed by its index.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const HOSTILE: [&str; 12] = [
    "999999999999",
    "18446744073709551616",
    "-1",
    "nan",
    "inf",
    "-inf",
    "1e39",
    "3e38",
    "0",
    "}",
    "{",
    "End",
];

/// One to three mutations of `seed`.
fn mutate(seed: &str, rng: &mut Rng) -> String {
    let mut bytes = seed.as_bytes().to_vec();
    for _ in 0..1 + rng.below(3) {
        let at = rng.below(bytes.len());
        match rng.below(8) {
            0 => bytes.truncate(at),
            1 => {
                if let Some(b) = bytes.get_mut(at) {
                    *b = rng.below(128) as u8;
                }
            }
            2 => {
                // Change a digit.
                if let Some(p) = (at..bytes.len()).find(|i| bytes[*i].is_ascii_digit()) {
                    bytes[p] = b'0' + rng.below(10) as u8;
                }
            }
            3 | 4 => {
                // Replace the token at `at` by a hostile one.
                let start = (0..at)
                    .rev()
                    .find(|i| bytes[*i].is_ascii_whitespace())
                    .map_or(0, |i| i + 1);
                let end = (at..bytes.len())
                    .find(|i| bytes[*i].is_ascii_whitespace())
                    .unwrap_or(bytes.len());
                let word = HOSTILE[rng.below(HOSTILE.len())].as_bytes();
                bytes.splice(start..end, word.iter().copied());
            }
            5 => {
                // Delete a line.
                let end = (at..bytes.len())
                    .find(|i| bytes[*i] == b'\n')
                    .map_or(bytes.len(), |i| i + 1);
                let start = (0..at)
                    .rev()
                    .find(|i| bytes[*i] == b'\n')
                    .map_or(0, |i| i + 1);
                bytes.drain(start..end);
            }
            6 => {
                // Duplicate a line.
                let start = (0..at)
                    .rev()
                    .find(|i| bytes[*i] == b'\n')
                    .map_or(0, |i| i + 1);
                let end = (at..bytes.len())
                    .find(|i| bytes[*i] == b'\n')
                    .map_or(bytes.len(), |i| i + 1);
                let line = bytes[start..end].to_vec();
                bytes.splice(start..start, line);
            }
            _ => bytes.insert(at.min(bytes.len()), b"\n{} \t"[rng.below(5)]),
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

fn seeds() -> Vec<String> {
    let mut out = vec![SMALL.to_string()];
    if let Some([path]) = common::require(["bvh/cmu_131_03_maxfriendly.bvh"]) {
        let text = std::fs::read_to_string(path).unwrap();
        let head: Vec<&str> = text.lines().take(190).collect();
        out.push(head.join("\n").replace("Frames: 1102", "Frames: 3"));
    }
    let first = read(SMALL, &BvhOptions::default()).unwrap();
    let written = write(
        &first.model.skeletons[0],
        &first.model.clips[0],
        &BvhWriteOptions::default(),
    )
    .unwrap();
    out.push(written);
    out
}

#[test]
fn mutated_files_never_panic() {
    let count: usize = std::env::var("SKELNORM_BVH_MUTATIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000);
    let seeds = seeds();
    for s in &seeds {
        assert!(read(s, &BvhOptions::default()).is_ok());
    }
    let started = std::time::Instant::now();
    let (mut ok, mut written) = (0usize, 0usize);
    for i in 0..count {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ (i as u64).wrapping_mul(0x1000_0000_01B3));
        let seed = &seeds[i % seeds.len()];
        let text = mutate(seed, &mut rng);
        let result = std::panic::catch_unwind(|| {
            let Ok(bvh) = read(&text, &BvhOptions::default()) else {
                return (false, false);
            };
            let Some(clip) = bvh.model.clips.first() else {
                return (true, false);
            };
            match write(&bvh.model.skeletons[0], clip, &BvhWriteOptions::default()) {
                Ok(out) => (true, read(&out, &BvhOptions::default()).is_ok()),
                Err(_) => (true, false),
            }
        });
        match result {
            Ok((r, w)) => {
                ok += r as usize;
                written += w as usize;
            }
            Err(_) => panic!("mutation {i} panicked on:\n{text}"),
        }
    }
    eprintln!(
        "bvh mutations: {count} inputs, {ok} read, {written} written and read back, no panic, {:.1} s",
        started.elapsed().as_secs_f64()
    );
}
