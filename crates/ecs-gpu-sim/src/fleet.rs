//! The instances of one group, grouped by what they run: every instance of one shape with the same
//! tasks is one entry with a count. Placing, stopping, launching and terminating move counts
//! between entries, so the cost grows with the number of distinct entries, not with the number of
//! instances; and the order in which a kind is placed or stopped is kept from one step to the next
//! (an entry never changes), so a step costs the entries it changes, not every entry.

use std::collections::{BTreeMap, BTreeSet};

/// A task kind: one service's revision, with what one task reserves.
#[derive(Debug, Clone)]
pub(crate) struct Kind {
    pub service: usize,
    pub new: bool,
    pub gpus: u32,
    pub cpu: u32,
    pub memory: u64,
    /// Static host ports, as bits of the scenario's port table.
    pub ports: u64,
    /// `distinctInstance`: at most one task of the service per instance.
    pub distinct: bool,
}

/// What an instance offers when empty.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Cap {
    pub instance_type: String,
    /// Launched by an instance refresh with the new configuration: apart from the instances it
    /// replaces, however alike.
    pub refreshed: bool,
    pub gpus: u32,
    pub cpu: u32,
    pub memory: u64,
    /// Whether `memory` is what the agent registered (else an upper bound).
    pub memory_exact: bool,
    /// The instance types it stands for: one, or several for the smallest or largest of a group's
    /// types when no one type is.
    pub of: Vec<String>,
}

/// The tasks on an instance: (kind, count), sorted by kind.
pub(crate) type Comp = Vec<(usize, u32)>;

/// Instances of one shape running the same tasks.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct Slot {
    pub cap: usize,
    pub comp: Comp,
}

/// What is left on an instance.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Free {
    pub gpus: i64,
    pub cpu: i64,
    pub memory: i64,
    pub ports: u64,
}

/// How a strategy ranks an instance that fits: the least first.
type Rank = (i64, i64, i64, i64);

/// The instances of a group.
#[derive(Debug, Clone, Default)]
pub(crate) struct Fleet {
    /// Read-only outside: [`Fleet::add`] and [`Fleet::take`] keep the totals below in step.
    pub slots: BTreeMap<Slot, u32>,
    /// Instances launched and not yet in service.
    pub launching: u32,
    /// Tasks, by kind: only the kinds this fleet runs (a kind's index counts every kind of the
    /// scenario, so a list indexed by it made each of 100,000 groups hold 100,000 counts).
    totals: BTreeMap<usize, u64>,
    /// Instances in service, by cap (only the caps this fleet has).
    by_cap: BTreeMap<usize, u32>,
    /// The entries instances moved into, in order, since the oldest index was brought up to
    /// date.
    log: Vec<Slot>,
    /// Orders kept from one call to the next, so that a step costs what changed in it rather than
    /// the whole fleet.
    indexes: BTreeMap<(usize, Use), Index>,
    /// An index is out of `indexes` while it is in use, and what moves meanwhile is logged too.
    in_use: bool,
    /// While a trial runs ([`Fleet::begin`]): every move, to undo it.
    undo: Option<Vec<(Slot, i64)>>,
}

/// What an [`Index`] orders entries for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Use {
    /// Placing a kind: the entries with room for it, in the strategy's order.
    Place,
    /// Stopping a kind: the entries that run it, the most first.
    Stop,
    /// Terminating instances, but not those of one cap: the fewest tasks first.
    Terminate,
}

/// Entries in the order a placement or a stop takes them, as of the log's position `at`. An
/// entry never changes (its tasks are its key), so what it offers a kind holds as long as it
/// exists: the entries logged since `at` are added when the index is next used, and entries that
/// no longer exist are dropped as they come up.
#[derive(Debug, Clone, Default)]
struct Index {
    at: usize,
    order: BTreeSet<(Rank, Slot)>,
}

pub(crate) fn free(caps: &[Cap], kinds: &[Kind], slot: &Slot) -> Free {
    let c = &caps[slot.cap];
    let mut f = Free {
        gpus: i64::from(c.gpus),
        cpu: i64::from(c.cpu),
        memory: i64::try_from(c.memory).unwrap_or(i64::MAX),
        ports: 0,
    };
    for &(k, n) in &slot.comp {
        let k = &kinds[k];
        let n = i64::from(n);
        f.gpus -= i64::from(k.gpus) * n;
        f.cpu -= i64::from(k.cpu) * n;
        f.memory -= i64::try_from(k.memory).unwrap_or(i64::MAX / 2) * n;
        f.ports |= k.ports;
    }
    f
}

/// How many more tasks of `kind` fit on one instance of `slot`.
pub(crate) fn fits(caps: &[Cap], kinds: &[Kind], slot: &Slot, kind: usize) -> u32 {
    let k = &kinds[kind];
    let f = free(caps, kinds, slot);
    if f.ports & k.ports != 0 {
        return 0;
    }
    let same_service = slot
        .comp
        .iter()
        .any(|&(o, n)| n > 0 && kinds[o].service == k.service);
    if k.distinct && same_service {
        return 0;
    }
    let by = |free: i64, need: u64| -> u64 {
        u64::try_from(free.max(0))
            .unwrap_or(0)
            .checked_div(need)
            .unwrap_or(u64::MAX)
    };
    let mut n = by(f.gpus, u64::from(k.gpus))
        .min(by(f.cpu, u64::from(k.cpu)))
        .min(by(f.memory, k.memory));
    if k.ports != 0 || k.distinct {
        n = n.min(1);
    }
    // A task that reserves nothing fits without bound; a few million is more than any fleet runs.
    u32::try_from(n.min(1 << 24)).unwrap_or(u32::MAX)
}

/// `comp` with `n` more (or, negative, fewer) tasks of `kind`.
pub(crate) fn with(comp: &Comp, kind: usize, n: i64) -> Comp {
    let mut out = comp.clone();
    match out.iter().position(|&(k, _)| k == kind) {
        Some(i) => {
            let v = i64::from(out[i].1) + n;
            if v <= 0 {
                out.remove(i);
            } else {
                out[i].1 = u32::try_from(v).unwrap_or(u32::MAX);
            }
        }
        None if n > 0 => {
            out.push((kind, u32::try_from(n).unwrap_or(u32::MAX)));
            out.sort_unstable();
        }
        None => {}
    }
    out
}

impl Fleet {
    pub fn instances(&self) -> u32 {
        self.by_cap.values().sum()
    }

    /// Instances in service, by cap index (the caps with instances, in index order).
    pub fn by_cap(&self) -> impl Iterator<Item = (usize, u32)> + '_ {
        self.by_cap.iter().map(|(&c, &n)| (c, n))
    }

    pub fn add(&mut self, slot: Slot, n: u32) {
        if n == 0 {
            return;
        }
        self.count(&slot, i64::from(n));
        if let Some(u) = &mut self.undo {
            u.push((slot.clone(), i64::from(n)));
        }
        if self.in_use || !self.indexes.is_empty() {
            self.log.push(slot.clone());
        }
        *self.slots.entry(slot).or_default() += n;
    }

    pub fn take(&mut self, slot: &Slot, n: u32) {
        if let Some(c) = self.slots.get_mut(slot) {
            let n = n.min(*c);
            *c -= n;
            if *c == 0 {
                self.slots.remove(slot);
            }
            self.count(slot, -i64::from(n));
            if let Some(u) = &mut self.undo {
                u.push((slot.clone(), -i64::from(n)));
            }
        }
    }

    /// Starts a trial: what moves from now on can be undone. Cheaper than a copy of the fleet
    /// when a trial moves few instances of many.
    pub fn begin(&mut self) {
        self.undo = Some(Vec::new());
    }

    /// Keeps what the trial moved.
    pub fn commit(&mut self) {
        self.undo = None;
    }

    /// Undoes what moved since [`Fleet::begin`].
    pub fn rollback(&mut self) {
        let Some(moves) = self.undo.take() else {
            return;
        };
        for (slot, n) in moves.into_iter().rev() {
            let count = u32::try_from(n.unsigned_abs()).unwrap_or(u32::MAX);
            if n > 0 {
                self.take(&slot, count);
            } else {
                self.add(slot, count);
            }
        }
    }

    fn count(&mut self, slot: &Slot, n: i64) {
        let c = self.by_cap.entry(slot.cap).or_default();
        *c = u32::try_from(i64::from(*c) + n).unwrap_or(0);
        if *c == 0 {
            self.by_cap.remove(&slot.cap);
        }
        for &(k, t) in &slot.comp {
            let e = self.totals.entry(k).or_default();
            *e = u64::try_from(i128::from(*e) + i128::from(n) * i128::from(t)).unwrap_or(0);
            if *e == 0 {
                self.totals.remove(&k);
            }
        }
    }

    /// Tasks of `kind`.
    pub fn tasks(&self, kind: usize) -> u64 {
        self.totals.get(&kind).copied().unwrap_or(0)
    }

    /// GPUs reserved by tasks, and GPUs of the instances in service.
    pub fn gpus(&self, caps: &[Cap], kinds: &[Kind]) -> (u64, u64) {
        let reserved = self
            .totals
            .iter()
            .map(|(&k, &n)| u64::from(kinds[k].gpus) * n)
            .sum();
        let total = self
            .by_cap
            .iter()
            .map(|(&c, &n)| u64::from(caps[c].gpus) * u64::from(n))
            .sum();
        (reserved, total)
    }

    /// Places up to `n` tasks of `kind` where `allowed` says the instance shape may take them,
    /// choosing among the instances that fit as the strategy does: binpack the fullest, spread and
    /// random the emptiest. Returns how many were placed.
    ///
    /// One pass over the entries, in the strategy's order: binpack fills every instance of an entry
    /// as far as the kind fits before the next entry (a filled entry never fits the kind again),
    /// and spread gives one task to each instance of the emptiest entry, whose successor re-enters
    /// the order. The cost follows the entries and the tasks placed, never their product.
    pub fn place(
        &mut self,
        caps: &[Cap],
        kinds: &[Kind],
        kind: usize,
        n: u64,
        binpack: bool,
        allowed: &dyn Fn(usize) -> bool,
    ) -> u64 {
        let service = kinds[kind].service;
        let rank = |slot: &Slot| -> Rank {
            let f = free(caps, kinds, slot);
            if binpack {
                (f.memory, f.cpu, f.gpus, 0)
            } else {
                let mine: i64 = slot
                    .comp
                    .iter()
                    .filter(|&&(k, _)| kinds[k].service == service)
                    .map(|&(_, c)| i64::from(c))
                    .sum();
                (mine, -f.gpus, -f.cpu, -f.memory)
            }
        };
        let candidate = |slot: &Slot| allowed(slot.cap) && fits(caps, kinds, slot, kind) > 0;
        let mut index = self.index((kind, Use::Place), &|s| candidate(s).then(|| rank(s)));
        let mut left = n;
        while left > 0 {
            let Some((r, slot)) = index.order.pop_first() else {
                break;
            };
            let Some(&count) = self.slots.get(&slot) else {
                continue;
            };
            if binpack {
                left -= self.fill(caps, kinds, &slot, kind, left);
            } else {
                // Spread: one task to each instance of the emptiest entry.
                let moved = u32::try_from(left.min(u64::from(count))).unwrap_or(u32::MAX);
                self.take(&slot, moved);
                let next = Slot {
                    cap: slot.cap,
                    comp: with(&slot.comp, kind, 1),
                };
                if candidate(&next) {
                    index.order.insert((rank(&next), next.clone()));
                }
                self.add(next, moved);
                left -= u64::from(moved);
            }
            if self.slots.contains_key(&slot) {
                index.order.insert((r, slot));
            }
        }
        self.keep(kind, Use::Place, index);
        n - left
    }

    /// The index for `key`, brought up to date with the entries logged since it was last used
    /// (`rank` is `None` for an entry that does not belong in it), or built from every entry.
    fn index(&mut self, key: (usize, Use), rank: &dyn Fn(&Slot) -> Option<Rank>) -> Index {
        self.in_use = true;
        let mut index = match self.indexes.remove(&key) {
            Some(mut index) => {
                for s in &self.log[index.at..] {
                    if self.slots.contains_key(s) {
                        if let Some(r) = rank(s) {
                            index.order.insert((r, s.clone()));
                        }
                    }
                }
                index
            }
            None => Index {
                at: 0,
                order: self
                    .slots
                    .keys()
                    .filter_map(|s| rank(s).map(|r| (r, s.clone())))
                    .collect(),
            },
        };
        index.at = self.log.len();
        index
    }

    /// Keeps an index for the next call, and the log only as far back as an index needs it.
    fn keep(&mut self, kind: usize, purpose: Use, index: Index) {
        // Entries logged during this call are looked at again next time (a set keeps one of each).
        self.in_use = false;
        self.indexes.insert((kind, purpose), index);
        let oldest = self
            .indexes
            .values()
            .map(|i| i.at)
            .min()
            .unwrap_or(self.log.len());
        if oldest > 0 {
            self.log.drain(..oldest);
            for i in self.indexes.values_mut() {
                i.at -= oldest;
            }
        }
    }

    /// Drops the indexes: a fleet kept as the start of many events should not carry them.
    pub fn forget_indexes(&mut self) {
        self.indexes.clear();
        self.log.clear();
    }

    /// Fills the instances of `slot` with up to `n` tasks of `kind`, each instance as far as the
    /// kind fits, and returns how many were placed.
    fn fill(&mut self, caps: &[Cap], kinds: &[Kind], slot: &Slot, kind: usize, n: u64) -> u64 {
        let Some(&count) = self.slots.get(slot) else {
            return 0;
        };
        let per = u64::from(fits(caps, kinds, slot, kind)).min(n);
        if per == 0 {
            return 0;
        }
        let full = (n / per).min(u64::from(count));
        let moved = u32::try_from(full).unwrap_or(u32::MAX);
        self.take(slot, moved);
        self.add(
            Slot {
                cap: slot.cap,
                comp: with(&slot.comp, kind, i64::try_from(per).unwrap_or(0)),
            },
            moved,
        );
        let mut placed = full * per;
        let rest = n - placed;
        if rest > 0 && full < u64::from(count) {
            // Fewer tasks left than one instance takes.
            self.take(slot, 1);
            self.add(
                Slot {
                    cap: slot.cap,
                    comp: with(&slot.comp, kind, i64::try_from(rest).unwrap_or(0)),
                },
                1,
            );
            placed += rest;
        }
        placed
    }

    /// Stops up to `n` tasks of `kind`, from the instances that run the most of them first.
    pub fn stop(&mut self, kind: usize, n: u64) -> u64 {
        let count_of = |s: &Slot| {
            s.comp
                .iter()
                .find(|&&(k, _)| k == kind)
                .map(|&(_, c)| (-i64::from(c), 0, 0, 0))
        };
        let mut index = self.index((kind, Use::Stop), &count_of);
        let mut left = n;
        while left > 0 {
            let Some((r, slot)) = index.order.pop_first() else {
                break;
            };
            let Some(&count) = self.slots.get(&slot) else {
                continue;
            };
            let per = u64::try_from(-r.0).unwrap_or(0);
            let count = u64::from(count);
            let whole = (left / per).min(count);
            let moved = u32::try_from(whole).unwrap_or(u32::MAX);
            self.take(&slot, moved);
            self.add(
                Slot {
                    cap: slot.cap,
                    comp: with(&slot.comp, kind, -i64::try_from(per).unwrap_or(0)),
                },
                moved,
            );
            left -= whole * per;
            if left > 0 && whole < count {
                // Fewer tasks left to stop than one instance runs.
                let rest = Slot {
                    cap: slot.cap,
                    comp: with(&slot.comp, kind, -i64::try_from(left).unwrap_or(0)),
                };
                self.take(&slot, 1);
                index
                    .order
                    .insert((count_of(&rest).unwrap_or_default(), rest.clone()));
                self.add(rest, 1);
                left = 0;
            }
            if self.slots.contains_key(&slot) {
                index.order.insert((r, slot));
            }
        }
        self.keep(kind, Use::Stop, index);
        n - left
    }

    /// Removes `n` instances that are not of the cap `keep`, those running the fewest tasks
    /// first, and returns the tasks they ran, by kind.
    pub fn terminate(&mut self, n: u32, keep: usize) -> Vec<(usize, u64)> {
        let tasks = |s: &Slot| {
            (s.cap != keep).then(|| {
                (
                    i64::from(s.comp.iter().map(|&(_, c)| c).sum::<u32>()),
                    0,
                    0,
                    0,
                )
            })
        };
        let mut index = self.index((keep, Use::Terminate), &tasks);
        let mut out: Vec<(usize, u64)> = Vec::new();
        let mut left = n;
        while left > 0 {
            let Some((r, slot)) = index.order.pop_first() else {
                break;
            };
            let Some(&count) = self.slots.get(&slot) else {
                continue;
            };
            let take = left.min(count);
            self.take(&slot, take);
            for &(k, c) in &slot.comp {
                let tasks = u64::from(c) * u64::from(take);
                match out.iter_mut().find(|(o, _)| *o == k) {
                    Some(e) => e.1 += tasks,
                    None => out.push((k, tasks)),
                }
            }
            left -= take;
            if self.slots.contains_key(&slot) {
                index.order.insert((r, slot));
            }
        }
        self.keep(keep, Use::Terminate, index);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fleet holds counts for the kinds and caps it runs, not for every kind and cap of the
    /// scenario: indexed lists made each group of a plan of 100,000 GPU services hold a count for
    /// each of the kinds before it: memory grew with the square of the services (figures in
    /// bench/README.md). Issue 50, item 9.
    #[test]
    fn a_fleet_holds_counts_only_for_what_it_runs() {
        let mut f = Fleet::default();
        let slot = Slot {
            cap: 99_999,
            comp: vec![(199_998, 2)],
        };
        f.add(slot.clone(), 3);
        assert_eq!((f.totals.len(), f.by_cap.len()), (1, 1));
        assert_eq!((f.tasks(199_998), f.instances()), (6, 3));
        assert_eq!(f.by_cap().collect::<Vec<_>>(), [(99_999, 3)]);
        f.take(&slot, 3);
        assert_eq!((f.totals.len(), f.by_cap.len(), f.instances()), (0, 0, 0));
    }

    /// The indexes kept from one call to the next change nothing: a fleet that keeps them and one
    /// that forgets them before every call end in the same state, over random placements, stops
    /// and arrivals of several kinds on several instance shapes.
    #[test]
    fn kept_indexes_place_and_stop_as_a_fresh_scan_does() {
        let caps: Vec<Cap> = [
            (1, 4096, 16_000),
            (4, 49_152, 190_000),
            (8, 98_304, 760_000),
        ]
        .iter()
        .map(|&(gpus, cpu, memory)| Cap {
            instance_type: format!("t{gpus}"),
            refreshed: false,
            gpus,
            cpu,
            memory,
            memory_exact: true,
            of: vec![format!("t{gpus}")],
        })
        .collect();
        let kinds: Vec<Kind> = [
            (0, 1, 2048, 8000, false),
            (1, 2, 8192, 30_000, false),
            (2, 1, 1024, 4000, true),
            (3, 0, 512, 1000, false),
            (0, 4, 4096, 16_000, false),
        ]
        .iter()
        .map(|&(service, gpus, cpu, memory, distinct)| Kind {
            service,
            new: false,
            gpus,
            cpu,
            memory,
            ports: 0,
            distinct,
        })
        .collect();
        let mut seed = 7u64;
        let mut next = move |n: u64| {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (seed >> 33) % n
        };
        for round in 0..200 {
            let mut kept = Fleet::default();
            for cap in 0..caps.len() {
                kept.add(
                    Slot {
                        cap,
                        comp: Vec::new(),
                    },
                    u32::try_from(next(30) + 1).unwrap(),
                );
            }
            let mut fresh = kept.clone();
            for op in 0..60 {
                let kind = usize::try_from(next(kinds.len() as u64)).unwrap();
                let n = next(40);
                // A service has one strategy and one set of constraints, as in the engine.
                let service = kinds[kind].service;
                let binpack = service.is_multiple_of(2);
                let allowed = |c: usize| !(service == 1 && c == 2);
                fresh.forget_indexes();
                let (a, b) = match next(4) {
                    0 => (kept.stop(kind, n), fresh.stop(kind, n)),
                    1 => {
                        let slot = Slot {
                            cap: usize::try_from(next(3)).unwrap(),
                            comp: Vec::new(),
                        };
                        kept.add(slot.clone(), 2);
                        fresh.add(slot, 2);
                        (0, 0)
                    }
                    _ => (
                        kept.place(&caps, &kinds, kind, n, binpack, &allowed),
                        fresh.place(&caps, &kinds, kind, n, binpack, &allowed),
                    ),
                };
                assert_eq!(a, b, "round {round}, operation {op}");
                assert_eq!(kept.slots, fresh.slots, "round {round}, operation {op}");
            }
        }
    }
}
