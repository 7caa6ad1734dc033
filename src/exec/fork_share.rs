//! `--max-site-fork-share`: the forks each branch site has made, and
//! whether one has made too many of the run's; and `--max-forks`, whether
//! the run has made all it may.
//!
//! A few sites can make most of a run's forks while adding nothing but
//! more of the same: GNU's `quotearg` switches on each byte of a file
//! name it quotes into a message, 20 ways a byte, and made 75% to 85% of
//! the forks of `cp`, `dd` and `split` under KLEE's coreutils arguments.
//! Every path that quotes a symbolic name multiplies there, and the paths
//! it makes crowd out the rest of the program in the searcher and in
//! memory. Past its share, such a site no longer forks: a path reaching
//! it goes the way its own model goes, as KLEE's `--max-static-fork-pct`
//! has it do. But the first time such a site could branch to a block no
//! path has run yet, it forks: a share that cuts a site must not also
//! keep the run from code behind it that no path has reached (a second
//! try at the same block is cut, as a block behind an infeasible
//! alternative would otherwise cost a solver call at every visit).
//!
//! A cut is not lost for good. A sample of the cut points is kept, each a
//! copy of its path at the point; when the rest of the run has run dry
//! with time left, those paths fork there after all, with the share
//! lifted for that one fork (the alternative already explored skipped).
//! Under KLEE's coreutils arguments `test`, `users` and `pathchk` ran out
//! of paths after 8 to 83 of their 300 seconds, with thousands of
//! alternatives cut.

use std::sync::Arc;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rustc_hash::{FxHashMap, FxHashSet};

use super::config::RunShared;
use super::executor::Executor;
use super::state::{Reopen, State};
use crate::ir::{BlockId, FuncId, InstId, SiteId};

/// Forks the run makes before any site counts as past its share: early
/// on, the first sites reached hold most of few forks.
const WARM_UP_FORKS: u64 = 1000;

/// A branch site as the share counts it: the site in its function,
/// whatever called the function. Counted apart for each calling context
/// (the two nearest call sites), `stty`'s `strcmp`s of option names had a
/// share each and it gained 6 points of line coverage at 5 minutes, but
/// the digest tools lost 5 to 10: a helper reached from many places (a
/// quoting wrapper, a line reader) then has as many shares as it has
/// callers, and the run's forks spread back over them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct SiteKey {
    func: FuncId,
    site: SiteId,
}

impl SiteKey {
    /// The key of `site` in `func`.
    pub(crate) fn new(func: FuncId, site: SiteId) -> SiteKey {
        SiteKey { func, site }
    }
}

/// Cut points kept to take up again: a uniform sample of them all (each
/// holds a path's state, which shares most of its memory with others).
const KEPT_CUTS: usize = 1024;

/// The share of `--max-memory` past which no more cut points are kept: a
/// kept copy holds on to the memory objects its path had written, which
/// the run would otherwise free as paths end.
const KEEP_BELOW: f64 = 0.5;

/// The forks the run has made, by site: one count for all its workers
/// (held in [`super::RunShared`]), as the share is of the run's forks.
#[derive(Debug, Default)]
pub(crate) struct SiteForks {
    by_site: FxHashMap<SiteKey, u64>,
    total: u64,
    /// The blocks no path had run that a site past its share has forked
    /// toward.
    tried: FxHashSet<(SiteKey, BlockId)>,
}

/// The forks of each site, against the share one may take, the run's
/// forks against `--max-forks`, and this executor's cuts.
#[derive(Debug)]
pub(crate) struct ForkShare {
    /// The share of the run's forks one site may make (`None`: no bound).
    limit: Option<f64>,
    /// The forks the whole run may make (`--max-forks`; `None`: no bound).
    max_forks: Option<u64>,
    /// The run's forks.
    run: RunShared,
    /// Alternatives left unasked because their site was past its share
    /// (some of them may have been infeasible).
    pub(crate) cut: u64,
    /// A sample of the cut points (reservoir sampling): each a copy of its
    /// path at the point, marked to fork there when taken up again.
    kept: Vec<State>,
    /// Cut points seen: what the sample is drawn from.
    cut_points: u64,
    /// Cut points taken up again once the run had nothing else to do.
    pub(crate) reopened: u64,
    /// Draws the sample; seeded, so that a run is the same each time.
    rng: SmallRng,
}

impl ForkShare {
    pub(crate) fn new(limit: Option<f64>, max_forks: Option<u64>, run: RunShared) -> ForkShare {
        ForkShare {
            limit,
            max_forks,
            run,
            cut: 0,
            kept: Vec::new(),
            cut_points: 0,
            reopened: 0,
            rng: SmallRng::seed_from_u64(0x006d_6e65_6d6f),
        }
    }

    /// Counts a cut point: the slot of the sample its copy is to take, if
    /// it is drawn into it.
    fn draw(&mut self) -> Option<usize> {
        self.cut_points += 1;
        if self.kept.len() < KEPT_CUTS {
            return Some(self.kept.len());
        }
        let slot = self.rng.gen_range(0..self.cut_points);
        (slot < KEPT_CUTS as u64).then_some(slot as usize)
    }

    fn keep(&mut self, slot: usize, state: State) {
        match self.kept.get_mut(slot) {
            Some(s) => *s = state,
            None => self.kept.push(state),
        }
    }

    /// The kept cut points, to explore now that nothing else is left; the
    /// cuts their paths make from here on are sampled afresh.
    pub(crate) fn reopen(&mut self) -> Vec<State> {
        self.cut_points = 0;
        self.reopened += self.kept.len() as u64;
        std::mem::take(&mut self.kept)
    }

    /// Lets the kept cut points go (the run needs their memory); returns
    /// how many there were.
    pub(crate) fn drop_kept(&mut self) -> usize {
        self.cut_points = 0;
        std::mem::take(&mut self.kept).len()
    }

    /// Whether the site `key` has made more than its share of the forks.
    pub(crate) fn past_share(&self, key: SiteKey) -> bool {
        let Some(limit) = self.limit else {
            return false;
        };
        let forks = self.run.site_forks();
        let made = forks.by_site.get(&key).copied().unwrap_or(0);
        forks.total >= WARM_UP_FORKS && made as f64 > limit * forks.total as f64
    }

    /// Whether the run has made the forks `--max-forks` allows it: from
    /// then on no path forks.
    pub(crate) fn forks_spent(&self) -> bool {
        self.max_forks
            .is_some_and(|most| self.run.site_forks().total >= most)
    }

    /// Whether a site past its share forks toward `block` (not yet
    /// covered): only the first time it could in the run.
    fn first_try(&mut self, key: SiteKey, block: BlockId) -> bool {
        self.run.site_forks().tried.insert((key, block))
    }

    /// Counts `children` new paths forked at the site `key`.
    pub(crate) fn forked(&mut self, key: SiteKey, children: u64) {
        if (self.limit.is_none() && self.max_forks.is_none()) || children == 0 {
            return;
        }
        let mut forks = self.run.site_forks();
        *forks.by_site.entry(key).or_insert(0) += children;
        forks.total += children;
    }
}

impl Executor {
    /// Keeps a copy of `state`, at a choice point of `site` where it was
    /// cut, if the sample draws it: taken up again, it forks there over
    /// every alternative but `taken`, which its path has explored.
    pub(super) fn keep_cut(&mut self, state: &mut State, site: SiteId, taken: usize) {
        if !self.budget.below(KEEP_BELOW) {
            return;
        }
        if let Some(slot) = self.fork_share.draw() {
            let mut copy = state.fork_child(self.next_id());
            copy.reopen = Some(Reopen {
                site,
                explored: taken as u32,
            });
            self.fork_share.keep(slot, copy);
        }
    }

    /// The cut points kept so far, as pending paths, for a run (or a
    /// worker) that has nothing else left to explore.
    pub fn reopen_cuts(&mut self) -> Vec<State> {
        self.fork_share.reopen()
    }

    /// Lets the kept cut points go, to bring memory down; returns how many.
    pub fn drop_kept_cuts(&mut self) -> usize {
        self.fork_share.drop_kept()
    }

    /// Whether a branch at the site `key`, past its share, forks all the
    /// same: one of its alternatives other than `taken` (the one the path's
    /// model takes) goes on to a block with an instruction no path has
    /// covered, and the site has not tried that block before.
    pub(super) fn opens_uncovered(
        &mut self,
        key: SiteKey,
        taken: Option<usize>,
        leads_to: &[BlockId],
    ) -> bool {
        if leads_to.is_empty() {
            return false;
        }
        let func = key.func;
        let module = Arc::clone(self.module());
        let Some(body) = module.func(func).body.as_ref() else {
            return false;
        };
        leads_to.iter().enumerate().any(|(i, &b)| {
            let block = body.block(b);
            Some(i) != taken
                && (block.first.0..block.end.0).any(|x| !self.is_covered(func, InstId(x)))
                && self.fork_share.first_try(key, b)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(func: u32, site: u32) -> SiteKey {
        SiteKey::new(FuncId(func), SiteId(site))
    }

    #[test]
    fn a_site_past_its_share_is_told_so_once_the_run_has_warmed_up() {
        let (busy, other) = (key(0, 1), key(0, 2));
        let mut share = ForkShare::new(Some(0.3), None, RunShared::default());
        share.forked(busy, 400);
        // 400 of 400, but the run is young.
        assert!(!share.past_share(busy));
        share.forked(other, 700);
        // 400 of 1100 is more than 30%; 700 of 1100 too.
        assert!(share.past_share(busy));
        assert!(share.past_share(other));
        share.forked(key(0, 3), 900);
        // 400 of 2000 is 20%: the busy site forks again.
        assert!(!share.past_share(busy));
        assert!(share.past_share(other) == (700.0 > 0.3 * 2000.0));
        assert!(!share.past_share(key(1, 1)), "sites are per function");
    }

    #[test]
    fn the_workers_of_a_run_count_its_forks_together() {
        let run = RunShared::default();
        let (mut one, mut two) = (
            ForkShare::new(Some(0.3), None, run.clone()),
            ForkShare::new(Some(0.3), None, run.clone()),
        );
        let alone = ForkShare::new(Some(0.3), None, RunShared::default());
        one.forked(key(0, 1), 600);
        two.forked(key(0, 2), 600);
        // 600 of the run's 1200 each: both past their share, seen from
        // either worker; another run has counted nothing.
        for share in [&one, &two] {
            assert!(share.past_share(key(0, 1)));
            assert!(share.past_share(key(0, 2)));
        }
        assert!(!alone.past_share(key(0, 1)));
        // A block is tried once in the run, whichever worker tries.
        assert!(one.first_try(key(0, 1), BlockId(3)));
        assert!(!two.first_try(key(0, 1), BlockId(3)));
    }

    #[test]
    fn max_forks_are_the_whole_runs_whatever_the_site_or_worker() {
        let run = RunShared::default();
        let (mut one, two) = (
            ForkShare::new(None, Some(10), run.clone()),
            ForkShare::new(None, Some(10), run.clone()),
        );
        one.forked(key(0, 1), 6);
        assert!(!two.forks_spent());
        one.forked(key(3, 2), 4);
        assert!(one.forks_spent() && two.forks_spent());
        // No site is past a share it does not have.
        assert!(!one.past_share(key(0, 1)));
        assert!(!ForkShare::new(Some(0.3), None, run).forks_spent());
    }

    #[test]
    fn without_a_limit_no_site_is_ever_past_it() {
        let mut share = ForkShare::new(None, None, RunShared::default());
        share.forked(key(0, 0), 1 << 20);
        assert!(!share.past_share(key(0, 0)));
    }
}
