//! The instances of one group, grouped by what they run: every instance of one shape with the same
//! tasks is one entry with a count. Placing, stopping, launching and terminating move counts
//! between entries, so the cost grows with the number of distinct entries (a few dozen for a
//! service on identical instances), not with the number of instances.

use std::collections::BTreeMap;

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
    pub gpus: u32,
    pub cpu: u32,
    pub memory: u64,
    /// Whether `memory` is what the agent registered (else an upper bound).
    pub memory_exact: bool,
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
    pub slots: BTreeMap<Slot, u32>,
    /// Instances launched and not yet in service.
    pub launching: u32,
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
        self.slots.values().sum::<u32>()
    }

    pub fn add(&mut self, slot: Slot, n: u32) {
        if n > 0 {
            *self.slots.entry(slot).or_default() += n;
        }
    }

    pub fn take(&mut self, slot: &Slot, n: u32) {
        if let Some(c) = self.slots.get_mut(slot) {
            *c -= n.min(*c);
            if *c == 0 {
                self.slots.remove(slot);
            }
        }
    }

    /// Tasks of `kind`.
    pub fn tasks(&self, kind: usize) -> u64 {
        self.slots
            .iter()
            .map(|(s, &n)| {
                u64::from(n)
                    * s.comp
                        .iter()
                        .find(|&&(k, _)| k == kind)
                        .map_or(0, |&(_, c)| u64::from(c))
            })
            .sum()
    }

    /// GPUs reserved by tasks, and GPUs of the instances in service.
    pub fn gpus(&self, caps: &[Cap], kinds: &[Kind]) -> (u64, u64) {
        let mut reserved = 0u64;
        let mut total = 0u64;
        for (s, &n) in &self.slots {
            total += u64::from(caps[s.cap].gpus) * u64::from(n);
            for &(k, c) in &s.comp {
                reserved += u64::from(kinds[k].gpus) * u64::from(c) * u64::from(n);
            }
        }
        (reserved, total)
    }

    /// Places up to `n` tasks of `kind` where `allowed` says the instance shape may take them,
    /// choosing among the instances that fit as the strategy does: binpack the fullest, spread and
    /// random the emptiest. Returns how many were placed.
    pub fn place(
        &mut self,
        caps: &[Cap],
        kinds: &[Kind],
        kind: usize,
        mut n: u64,
        binpack: bool,
        allowed: &dyn Fn(usize) -> bool,
    ) -> u64 {
        let service = kinds[kind].service;
        let mut placed = 0;
        while n > 0 {
            // (key, slot, fit): binpack the least free; spread the fewest tasks of the service.
            let mut best: Option<(Rank, Slot, u32)> = None;
            for slot in self.slots.keys() {
                if !allowed(slot.cap) {
                    continue;
                }
                let fit = fits(caps, kinds, slot, kind);
                if fit == 0 {
                    continue;
                }
                let f = free(caps, kinds, slot);
                let mine: i64 = slot
                    .comp
                    .iter()
                    .filter(|&&(k, _)| kinds[k].service == service)
                    .map(|&(_, c)| i64::from(c))
                    .sum();
                let key = if binpack {
                    (f.memory, f.cpu, f.gpus, 0)
                } else {
                    (mine, -f.gpus, -f.cpu, -f.memory)
                };
                if best.as_ref().is_none_or(|(b, _, _)| key < *b) {
                    best = Some((key, slot.clone(), fit));
                }
            }
            let Some((_, slot, fit)) = best else { break };
            let count = u64::from(self.slots[&slot]);
            // Binpack fills one instance before the next; spread gives each instance one task a
            // round.
            let per = if binpack { u64::from(fit).min(n) } else { 1 };
            let full = (n / per).min(count);
            if full > 0 {
                let moved = u32::try_from(full).unwrap_or(u32::MAX);
                self.take(&slot, moved);
                self.add(
                    Slot {
                        cap: slot.cap,
                        comp: with(&slot.comp, kind, i64::try_from(per).unwrap_or(0)),
                    },
                    moved,
                );
                n -= full * per;
                placed += full * per;
            } else {
                // Fewer tasks left than one instance takes.
                self.take(&slot, 1);
                self.add(
                    Slot {
                        cap: slot.cap,
                        comp: with(&slot.comp, kind, i64::try_from(n).unwrap_or(0)),
                    },
                    1,
                );
                placed += n;
                n = 0;
            }
        }
        placed
    }

    /// Stops up to `n` tasks of `kind`, from the instances that run the most of them first.
    pub fn stop(&mut self, kind: usize, mut n: u64) -> u64 {
        let mut stopped = 0;
        while n > 0 {
            let best = self
                .slots
                .keys()
                .filter_map(|s| {
                    s.comp
                        .iter()
                        .find(|&&(k, _)| k == kind)
                        .map(|&(_, c)| (c, s.clone()))
                })
                .max_by_key(|(c, s)| (*c, std::cmp::Reverse(s.clone())));
            let Some((per, slot)) = best else { break };
            let per = u64::from(per);
            let count = u64::from(self.slots[&slot]);
            let whole = (n / per).min(count);
            if whole > 0 {
                let moved = u32::try_from(whole).unwrap_or(u32::MAX);
                self.take(&slot, moved);
                self.add(
                    Slot {
                        cap: slot.cap,
                        comp: with(&slot.comp, kind, -i64::try_from(per).unwrap_or(0)),
                    },
                    moved,
                );
                n -= whole * per;
                stopped += whole * per;
            } else {
                self.take(&slot, 1);
                self.add(
                    Slot {
                        cap: slot.cap,
                        comp: with(&slot.comp, kind, -i64::try_from(n).unwrap_or(0)),
                    },
                    1,
                );
                stopped += n;
                n = 0;
            }
        }
        stopped
    }

    /// Removes `n` instances that are not `exempt`, those running the fewest tasks first, and
    /// returns the tasks they ran, by kind.
    pub fn terminate(&mut self, mut n: u32, exempt: &dyn Fn(&Slot) -> bool) -> Vec<(usize, u64)> {
        let mut out: Vec<(usize, u64)> = Vec::new();
        while n > 0 {
            let Some(slot) = self
                .slots
                .keys()
                .filter(|s| !exempt(s))
                .min_by_key(|s| (s.comp.iter().map(|&(_, c)| c).sum::<u32>(), (*s).clone()))
                .cloned()
            else {
                break;
            };
            let take = n.min(self.slots[&slot]);
            self.take(&slot, take);
            for &(k, c) in &slot.comp {
                let tasks = u64::from(c) * u64::from(take);
                match out.iter_mut().find(|(o, _)| *o == k) {
                    Some(e) => e.1 += tasks,
                    None => out.push((k, tasks)),
                }
            }
            n -= take;
        }
        out
    }
}
