//! Threads that start on another core than the thread that starts them.
//!
//! A scheduler may queue a new thread on the core of the thread that started it, even with
//! another core idle, and leave it there until that thread blocks: the kernels of the 2-core
//! virtual machines this project is measured and tested on do (their command line packs tasks
//! onto few virtual CPUs, `sched_vcpu_pack`). There a helper meant to run beside the calling
//! thread ran after it instead: a thread started while its starter kept working for 2 ms began
//! 1.4 to 2.0 ms later in most of 40 tries; moved off as here, 43 to 174 µs later, and ran on
//! the other core to its end (issue 19; `docs/speed-history.md`, thirteenth round).
//!
//! So a helper started with [`spawn_apart`] checks first thing whether it runs on its starter's
//! core and, if so, moves itself to the others the process may use, then lets the scheduler
//! place it anywhere again (the move is done: a running thread stays where it is), and the
//! starter yields once so that the helper gets that first moment. Where the scheduler spreads
//! threads on its own, or the process may use one core only, nothing moves; off Linux, nothing
//! is looked at.

use std::thread::{Scope, ScopedJoinHandle};

/// Starts `f` on a new thread named `name` in scope `s`, on another core than this thread's when
/// the process may use one (see the module's documentation). The error is that of starting a
/// thread: callers do the work on their own thread then.
pub fn spawn_apart<'scope, T: Send + 'scope>(
    s: &'scope Scope<'scope, '_>,
    name: &str,
    f: impl FnOnce() -> T + Send + 'scope,
) -> std::io::Result<ScopedJoinHandle<'scope, T>> {
    let from = core_now();
    let handle = std::thread::Builder::new()
        .name(name.to_owned())
        .spawn_scoped(s, move || {
            move_off(from);
            f()
        })?;
    if from.is_some() {
        // The new thread may be queued behind this one, on this core: it moves off in its turn.
        std::thread::yield_now();
    }
    Ok(handle)
}

/// The core this thread runs on, where that can be known.
#[cfg(target_os = "linux")]
fn core_now() -> Option<usize> {
    Some(rustix::thread::sched_getcpu())
}

#[cfg(not(target_os = "linux"))]
fn core_now() -> Option<usize> {
    None
}

/// Moves this thread off core `from` (its starter's) if it runs there and the process may use
/// another core, then lets it run on any of the cores it could before. Failures leave it where
/// it is: only the speed is at stake.
#[cfg(target_os = "linux")]
fn move_off(from: Option<usize>) {
    let Some(from) = from.filter(|&c| c == rustix::thread::sched_getcpu()) else {
        return;
    };
    if let Ok(all) = rustix::thread::sched_getaffinity(None) {
        move_off_to(from, all);
    }
}

#[cfg(not(target_os = "linux"))]
fn move_off(_: Option<usize>) {}

/// [`move_off`] from core `from` to the others of `all`, then onto all of `all` again; the core
/// it moved to, unless it stayed (`all` holds no other core, or the system refused).
#[cfg(target_os = "linux")]
fn move_off_to(from: usize, all: rustix::thread::CpuSet) -> Option<usize> {
    use rustix::thread::{sched_getcpu, sched_setaffinity};
    let mut others = all;
    others.unset(from);
    if others.count() == 0 || sched_setaffinity(None, &others).is_err() {
        return None;
    }
    // The move is made before the call returns: this thread now runs on one of `others`.
    let to = sched_getcpu();
    // Ignored on failure: the thread is then kept off its starter's core, which still runs.
    let _ = sched_setaffinity(None, &all);
    Some(to)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_work_runs_and_its_result_comes_back() {
        let data = [1, 2, 3];
        let sum = std::thread::scope(|s| {
            let h = spawn_apart(s, "test", || data.iter().sum::<i32>()).unwrap();
            h.join().unwrap()
        });
        assert_eq!(sum, 6);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn the_thread_may_run_on_every_core_it_could_before() {
        let before = rustix::thread::sched_getaffinity(None).unwrap();
        let after = std::thread::scope(|s| {
            spawn_apart(s, "test", || {
                rustix::thread::sched_getaffinity(None).unwrap()
            })
            .unwrap()
            .join()
            .unwrap()
        });
        for c in 0..rustix::thread::CpuSet::MAX_CPU {
            assert_eq!(before.is_set(c), after.is_set(c), "core {c}");
        }
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_thread_on_its_starters_core_moves_to_another_and_may_come_back() {
        use rustix::thread::{sched_getaffinity, sched_getcpu, sched_setaffinity, CpuSet};
        let allowed = sched_getaffinity(None).unwrap();
        let cores: Vec<usize> = (0..CpuSet::MAX_CPU)
            .filter(|&c| allowed.is_set(c))
            .collect();
        let a = cores[0];
        // Where this test may use a second core, the thread moves to it (else that part is
        // not run: nothing moves on one core, as the last assertion checks).
        let b = cores.get(1).copied();
        std::thread::spawn(move || {
            // On core `a` alone, as a new thread queued on its starter's core is.
            let mut only_a = CpuSet::new();
            only_a.set(a);
            sched_setaffinity(None, &only_a).unwrap();
            assert_eq!(sched_getcpu(), a);
            if let Some(b) = b {
                let mut two = only_a;
                two.set(b);
                assert_eq!(move_off_to(a, two), Some(b));
                let now = sched_getaffinity(None).unwrap();
                assert!(now.is_set(a) && now.is_set(b) && now.count() == 2);
            }
            // With no other core to go to, it stays.
            assert_eq!(move_off_to(a, only_a), None);
        })
        .join()
        .unwrap();
    }
}
