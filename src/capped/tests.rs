//! The capped set against plain models of what it keeps.

use super::*;

/// The set against a plain list in the order the keys came, through random inserts,
/// inserts again, removals and evictions: same entries, same order, bounded queue.
/// `hash` makes each key's hash: the real one, or one that makes keys collide (indexed
/// by their text in `spill`).
fn capped_set_against_a_plain_list(hash: impl Fn(&str) -> u64) {
    let mut t: Capped<u64> = Capped::new(50);
    let mut model: Vec<(String, u64)> = Vec::new();
    let mut rng = crate::test_rng::Rng::new(0x2545_f491_4f6c_dd1d);
    for step in 0..20_000u64 {
        let x = rng.next_u64();
        // Some keys too long to be kept in place.
        let key = if x.is_multiple_of(5) {
            format!("{}-k{}", "long".repeat(12), x % 97)
        } else {
            format!("k{}", x % 97)
        };
        let k = Key {
            text: &key,
            hash: hash(&key),
        };
        if x.is_multiple_of(3) {
            let got = t.remove(k);
            let want = model
                .iter()
                .position(|(k, _)| *k == key)
                .map(|i| model.remove(i).1);
            assert_eq!(got, want, "remove {key} at {step}");
        } else {
            let capped = t.insert(k, step);
            model.retain(|(k, _)| *k != key);
            let mut dropped = false;
            if model.len() >= 50 {
                model.remove(0);
                dropped = true;
            }
            model.push((key.clone(), step));
            assert!(!capped || dropped);
        }
        assert_eq!(
            t.get(k).copied(),
            model.iter().find(|(k, _)| *k == key).map(|e| e.1)
        );
        assert_eq!(t.live, model.len());
        assert!(t.slots.len() <= 2 * t.live + 65, "holes are compacted");
        assert!(
            t.by_hash.len() <= 50 + 50 / 8 + 65,
            "stale entries are swept"
        );
    }
    let rest: Vec<(String, u64)> = t
        .drain()
        .into_iter()
        .map(|(k, v)| (k.as_str().to_string(), v))
        .collect();
    assert_eq!(rest, model);
}

#[test]
fn capped_set_matches_a_plain_list() {
    let hasher = Hasher::default();
    capped_set_against_a_plain_list(|k| Key::new(k, &hasher).hash);
}

/// Keys of the same hash (a collision) are told apart by their text.
#[test]
fn capped_set_with_colliding_hashes_matches_a_plain_list() {
    capped_set_against_a_plain_list(|k| k.len() as u64 % 3);
}

/// The set of ids as it was written before it was one of these sets: two hash sets.
#[derive(Debug, Default, Clone, PartialEq)]
struct TwoGenerations {
    newer: std::collections::HashSet<String>,
    older: std::collections::HashSet<String>,
}

impl TwoGenerations {
    fn insert(&mut self, id: &str, cap: usize) -> bool {
        if self.newer.contains(id) || self.older.contains(id) {
            return false;
        }
        if self.newer.len() >= cap / 2 {
            self.older = std::mem::take(&mut self.newer);
        }
        self.newer.insert(id.to_string())
    }

    fn remove(&mut self, id: &str) -> bool {
        self.newer.remove(id) || self.older.remove(id)
    }
}

/// The set of ids against two hash sets, through random inserts, removals and
/// clears: the same answers, the same ids kept, and equal exactly when they are. Some
/// keys long enough to be kept apart from their slot, and a cap small enough that
/// generations turn often and the queue is compacted.
#[test]
fn id_set_keeps_what_two_generations_keep() {
    const CAP: usize = 12;
    let mut rng = crate::test_rng::Rng::new(0x51_7cc1_b727_220a);
    let (mut a, mut b) = (IdSet::<CAP>::default(), IdSet::<CAP>::default());
    let (mut ma, mut mb) = (TwoGenerations::default(), TwoGenerations::default());
    let mut equal_seen = 0;
    for step in 0..200_000u64 {
        let x = rng.next_u64();
        let id = if x.is_multiple_of(7) {
            format!("{}-{}", "long".repeat(12), x % 23)
        } else {
            format!("id{}", x % 23)
        };
        // To one of the sets, or to both (so they are equal at times, after different
        // histories).
        let sides = match (x >> 8) % 4 {
            0 => vec![(&mut a, &mut ma)],
            1 => vec![(&mut b, &mut mb)],
            _ => vec![(&mut a, &mut ma), (&mut b, &mut mb)],
        };
        for (set, model) in sides {
            match x % 11 {
                0..=5 => assert_eq!(set.insert(&id), model.insert(&id, CAP), "{step}"),
                6..=9 => assert_eq!(set.remove(&id), model.remove(&id), "{step}"),
                _ if (x >> 16).is_multiple_of(50) => {
                    set.clear();
                    *model = TwoGenerations::default();
                }
                _ => {}
            }
            assert_eq!(set.len(), model.newer.len() + model.older.len(), "{step}");
            assert!(set.len() <= CAP);
            assert!(
                set.set.slots.len() <= 2 * set.set.live + 65,
                "holes are compacted"
            );
        }
        assert_eq!(a == b, ma == mb, "{step}");
        equal_seen += usize::from(ma == mb);
    }
    assert!(equal_seen > 100, "{equal_seen}");
    for id in (0..23).map(|i| format!("id{i}")) {
        assert_eq!(a.clone().insert(&id), ma.clone().insert(&id, CAP));
    }
}
