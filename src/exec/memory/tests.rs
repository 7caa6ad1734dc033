use super::*;
use crate::expr::{eval, Assignment};

#[test]
fn equal_contents_read_at_a_symbolic_offset_give_equal_expressions() {
    let index = expr::read(
        &UpdateList::new(Array::symbolic("mem_index", 1)),
        &expr::constant(0, 64),
    );
    let offset = expr::zext(&expr::and(&index, &expr::constant(3, 8)), 64);
    let table = || ObjectState::from_bytes(vec![10, 20, 30, 40]);
    let (a, b) = (table(), table());
    // Two objects (or two reads of one) with the same bytes: the same
    // lookup, which caches and stores can recognise.
    assert_eq!(
        a.read_symbolic(&offset, 1, 8),
        b.read_symbolic(&offset, 1, 8)
    );
    assert_eq!(
        a.read_symbolic(&offset, 1, 8),
        a.read_symbolic(&offset, 1, 8)
    );
    let other = ObjectState::from_bytes(vec![10, 20, 30, 41]);
    assert_ne!(
        a.read_symbolic(&offset, 1, 8),
        other.read_symbolic(&offset, 1, 8)
    );
}

fn object(addr: u64, size: u64) -> MemoryObject {
    MemoryObject {
        address: addr,
        size,
        kind: AllocKind::Heap,
        name: "o".into(),
        site: None,
        read_only: false,
    }
}

#[test]
fn an_object_holds_the_bytes_that_end_by_its_end() {
    let o = object(0x1000, 16);
    assert!(o.holds(0x1000, 16));
    assert!(o.holds(0x100f, 1));
    assert!(o.holds(0x1010, 0));
    assert!(!o.holds(0x100f, 2));
    assert!(!o.holds(0xfff, 1));
    // A length near the top of the address space does not wrap around.
    assert!(!o.holds(0x1008, u64::MAX - 4));
}

#[test]
fn concrete_bytes_stay_concrete_little_endian() {
    let mut o = ObjectState::zeroed(8);
    o.write(2, 4, &Value::concrete(0x1122_3344, 32));
    assert_eq!(o.read(2, 4, 32), Value::concrete(0x1122_3344, 32));
    assert_eq!(o.read(2, 1, 8), Value::concrete(0x44, 8));
    assert_eq!(o.read(0, 8, 64), Value::concrete(0x0000_1122_3344_0000, 64));
}

#[test]
fn symbolic_bytes_mix_with_concrete_ones() {
    let arr = Array::symbolic("x", 2);
    let mut o = ObjectState::zeroed(4);
    o.write(0, 4, &Value::concrete(0xaabb_ccdd, 32));
    o.make_symbolic(1, &arr);
    let v = o.read(0, 4, 32);
    assert!(matches!(v, Value::Symbolic(_)));
    let mut a = Assignment::new();
    a.set(&arr, vec![0x01, 0x02]);
    assert_eq!(eval(&v.to_expr(), &a), 0xaa02_01dd);
    // Overwriting with a concrete value makes the byte concrete again.
    o.write(1, 2, &Value::concrete(0x7777, 16));
    assert_eq!(o.read(0, 4, 32), Value::concrete(0xaa77_77dd, 32));
}

#[test]
fn a_large_object_keeps_only_its_symbolic_bytes() {
    let size = 64 << 20;
    let arr = Array::symbolic("big", 2);
    let mut o = ObjectState::zeroed(size);
    // Nothing is held for bytes nobody wrote but a page table.
    let untouched = o.footprint();
    assert!(untouched < size / 256, "{untouched}");
    o.make_symbolic(size - 2, &arr);
    // A slot per byte would be 8 bytes for each of the 64 MiB: the
    // last page and its slots are all that is added.
    assert!(o.footprint() - untouched <= 9 * 4096, "{}", o.footprint());
    let mut a = Assignment::new();
    a.set(&arr, vec![0x34, 0x12]);
    assert_eq!(eval(&o.read(size - 2, 2, 16).to_expr(), &a), 0x1234);
    assert_eq!(o.read(0, 2, 16), Value::concrete(0, 16));
    o.write(size - 2, 1, &Value::concrete(0x99, 8));
    assert_eq!(eval(&o.read(size - 2, 2, 16).to_expr(), &a), 0x1299);
    // The update list holds the one symbolic byte left.
    let idx = expr::constant((size - 1) as u128, 64);
    assert_eq!(eval(&expr::read(&o.update_list(), &idx), &a), 0x12);
}

#[test]
fn a_write_at_a_symbolic_offset_is_seen_by_every_later_read() {
    let idx = Array::symbolic("i", 8);
    let list = UpdateList::new(idx.clone());
    let mut off = expr::read(&list, &expr::constant(0, 64));
    for k in 1..8 {
        off = expr::concat(&expr::read(&list, &expr::constant(k, 64)), &off);
    }
    let mut o = ObjectState::from_bytes(vec![10, 20, 30, 40]);
    o.write_symbolic(&off, 1, &Value::concrete(99, 8));
    let mut a = Assignment::new();
    for (i, expect) in [[99, 20, 30, 40], [10, 20, 99, 40]].iter().enumerate() {
        a.set(&idx, (2 * i as u64).to_le_bytes().to_vec());
        for (k, e) in expect.iter().enumerate() {
            let b = o.read(k as u64, 1, 8);
            assert_eq!(
                eval(&b.to_expr(), &a),
                *e as u128,
                "byte {k} with index {}",
                2 * i
            );
        }
        let r = o.read_symbolic(&off, 1, 8);
        assert_eq!(eval(&r.to_expr(), &a), 99);
    }
}

#[test]
fn a_write_at_a_few_places_is_spread_over_them() {
    // A bit set of four 64-bit words, the word of character `c` written
    // with `c` in every byte: as `bitset_set (set, c)` writes its word.
    let arr = Array::symbolic("spread_c", 1);
    let c = expr::read(&UpdateList::new(arr.clone()), &expr::constant(0, 64));
    let word = expr::binary(
        crate::ir::BinOp::LShr,
        &expr::zext(&c, 64),
        &expr::constant(6, 64),
    );
    let offset = expr::mul(&expr::constant(8, 64), &word);
    let value = Value::from_expr(expr::concat(
        &expr::concat(&expr::concat(&c, &c), &expr::concat(&c, &c)),
        &expr::concat(&expr::concat(&c, &c), &expr::concat(&c, &c)),
    ));
    let mut spread = ObjectState::zeroed(32);
    spread.write_symbolic(&offset, 8, &value);
    assert!(spread.updates.is_none(), "kept as bytes at known places");
    // A second write goes to a list over the spread bytes.
    let mut twice = spread.clone();
    let one = Value::concrete(1, 8);
    twice.write_symbolic(&offset, 1, &one);
    assert!(twice.updates.is_some());
    // Over a wider object a byte offset has too many places: a list.
    let wide_offset = expr::zext(&c, 64);
    let mut listed = ObjectState::zeroed(300);
    listed.write_symbolic(&wide_offset, 1, &Value::from_expr(c.clone()));
    assert!(listed.updates.is_some());
    let mut a = Assignment::new();
    for v in 0..=255u8 {
        a.set(&arr, vec![v]);
        for k in 0..32u64 {
            let expect = if k / 8 == u64::from(v >> 6) { v } else { 0 };
            let got = eval(&spread.read(k, 1, 8).to_expr(), &a);
            assert_eq!(got, u128::from(expect), "byte {k} with c = {v}");
        }
        for k in 0..32u64 {
            let first = if k / 8 == u64::from(v >> 6) { v } else { 0 };
            let expect = if k == u64::from(v >> 6) * 8 { 1 } else { first };
            let got = eval(&twice.read(k, 1, 8).to_expr(), &a);
            assert_eq!(got, u128::from(expect), "byte {k} with c = {v}, twice");
        }
        let back = spread.read_symbolic(&offset, 8, 64);
        assert_eq!(eval(&back.to_expr(), &a), eval(&value.to_expr(), &a));
        for k in [0u64, u64::from(v), 299] {
            let expect = if k == u64::from(v) { v } else { 0 };
            let got = eval(&listed.read(k, 1, 8).to_expr(), &a);
            assert_eq!(got, u128::from(expect), "byte {k} with c = {v}");
        }
    }
}

#[test]
fn every_instance_counts_the_bytes_it_holds() {
    let mut o = ObjectState::zeroed(1000);
    assert_eq!(o.footprint(), 1000);
    assert_eq!(o.counted, 1000);
    // A symbolic byte brings the table of symbolic bytes.
    o.make_symbolic(3, &Array::symbolic("s", 1));
    let with_table = 1000 + 1000 * std::mem::size_of::<Option<ExprRef>>() as u64;
    assert_eq!(o.counted, with_table);
    let copy = o.clone();
    assert_eq!(copy.counted, with_table);
    // Written at a symbolic offset, the bytes live in the list's root
    // alone.
    let idx = expr::read(
        &UpdateList::new(Array::symbolic("i", 8)),
        &expr::constant(0, 64),
    );
    o.write_symbolic(&expr::zext(&idx, 64), 1, &Value::concrete(1, 8));
    assert_eq!(o.counted, 1000);
    assert_eq!(o.footprint(), 1000);
    assert_eq!(o.size(), 1000);
    assert_eq!(eval(&o.read(3, 1, 8).to_expr(), &Assignment::new()), 0);
}

fn stack_object(addr: u64, size: u64) -> MemoryObject {
    MemoryObject {
        kind: AllocKind::Stack,
        ..object(addr, size)
    }
}

/// The first four bytes of the live object at `base`.
fn first_word(m: &AddressSpace, base: u64) -> Value {
    m.get(base).expect("live").state.read(0, 4, 32)
}

#[test]
fn stack_objects_and_the_others_answer_as_one_address_space() {
    let mut m = AddressSpace::default();
    // Interleaved by address, inserted out of order.
    m.insert(stack_object(0x3000, 8), ObjectState::zeroed(8));
    m.insert(object(0x1000, 16), ObjectState::zeroed(16));
    m.insert(stack_object(0x2000, 4), ObjectState::zeroed(4));
    m.insert(object(0x4000, 4), ObjectState::zeroed(4));
    m.insert(stack_object(0x5000, 2), ObjectState::zeroed(2));
    assert_eq!(m.len(), 5);
    fn bases(m: &AddressSpace, from: u64) -> Vec<u64> {
        m.objects_from(from).map(|e| e.object.address).collect()
    }
    assert_eq!(bases(&m, 0), [0x1000, 0x2000, 0x3000, 0x4000, 0x5000]);
    assert_eq!(bases(&m, 0x2000), [0x2000, 0x3000, 0x4000, 0x5000]);
    assert_eq!(bases(&m, 0x3001), [0x4000, 0x5000]);
    for (addr, base) in [
        (0x1003, 0x1000),
        (0x2003, 0x2000),
        (0x3007, 0x3000),
        (0x5001, 0x5000),
    ] {
        assert_eq!(m.find(addr).map(|e| e.object.address), Some(base));
    }
    assert!(m.find(0x2004).is_none());
    assert!(m.find(0x5002).is_none());
    assert_eq!(m.gap_around(0x2010), (0x2004, 0x3000));
    assert_eq!(m.gap_around(0x3100), (0x3008, 0x4000));
    assert_eq!(m.gap_around(0x6000), (0x5002, u64::MAX));
    assert_eq!(m.below(0x3100).map(|o| o.address), Some(0x3000));
    assert_eq!(m.below(0x4100).map(|o| o.address), Some(0x4000));
    assert_eq!(m.get(0x3000).map(|e| e.object.size), Some(8));
    assert!(m.get(0x3001).is_none());

    // A write to a stack object leaves a copy of the space alone.
    let copy = m.clone();
    m.state_mut(0x3000)
        .expect("live")
        .write(0, 4, &Value::concrete(7, 32));
    assert_eq!(first_word(&m, 0x3000), Value::concrete(7, 32));
    assert_eq!(first_word(&copy, 0x3000), Value::concrete(0, 32));

    // A stack object removed is gone, and not freed as heap is.
    assert!(m.remove(0x5000).is_some());
    assert!(m.remove(0x2000).is_some());
    assert!(m.find(0x2001).is_none());
    assert!(m.find_freed(0x2001).is_none());
    assert_eq!(bases(&m, 0), [0x1000, 0x3000, 0x4000]);
    assert_eq!(copy.len(), 5);
}

#[test]
fn address_space_finds_objects_and_remembers_freed_ones() {
    let mut m = AddressSpace::default();
    m.insert(object(0x1000, 16), ObjectState::zeroed(16));
    m.insert(object(0x2000, 4), ObjectState::zeroed(4));
    assert_eq!(m.find(0x100f).map(|e| e.object.address), Some(0x1000));
    assert!(m.find(0x1010).is_none());
    assert!(m.find(0x0fff).is_none());
    let copy = m.clone();
    m.state_mut(0x2000)
        .expect("live")
        .write(0, 4, &Value::concrete(5, 32));
    assert_eq!(first_word(&copy, 0x2000), Value::concrete(0, 32));
    m.remove(0x2000);
    assert!(m.find(0x2001).is_none());
    assert_eq!(m.find_freed(0x2001).map(|o| o.address), Some(0x2000));
    assert_eq!(copy.len(), 2);
}

#[test]
fn a_parked_threads_stack_objects_stay_live_and_come_back() {
    let mut m = AddressSpace::default();
    // Two threads' frames interleave: the first's at 0x1000 and 0x3000.
    m.insert(stack_object(0x1000, 8), ObjectState::zeroed(8));
    m.insert(stack_object(0x3000, 8), ObjectState::zeroed(8));
    m.park_stack();
    m.insert(stack_object(0x2000, 8), ObjectState::zeroed(8));
    m.insert(stack_object(0x4000, 8), ObjectState::zeroed(8));
    // The parked thread's objects are still found, written and listed.
    assert_eq!(m.find(0x3004).map(|e| e.object.address), Some(0x3000));
    m.state_mut(0x1000)
        .expect("live")
        .write(0, 4, &Value::concrete(9, 32));
    let all: Vec<u64> = m.objects_from(0).map(|e| e.object.address).collect();
    assert_eq!(all, [0x1000, 0x2000, 0x3000, 0x4000]);
    m.park_stack();
    m.unpark_stack([0x3000, 0x1000]);
    assert_eq!(first_word(&m, 0x1000), Value::concrete(9, 32));
    // A return removes its frame's objects; neither thread's are freed.
    assert!(m.remove(0x3000).is_some());
    assert!(m.remove(0x4000).is_some());
    assert!(m.find_freed(0x4000).is_none());
    let left: Vec<u64> = m.objects_from(0).map(|e| e.object.address).collect();
    assert_eq!(left, [0x1000, 0x2000]);
}
