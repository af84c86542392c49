//! Aggregates beyond a count: `count`, `sum`, `min`, `max` and `avg` over a value column of
//! `i64` or `f64`, and the per-group state each kernel keeps for them.
//!
//! Every kernel is generic over a [`State`], monomorphized per state, so the count-only path
//! is the code it was (a `u64` per group) and a query pays only for the state it asks for:
//! 8 bytes a group for `count`, 24 for `sum` of `i64`, 40 for `sum,min,max` of `i64`.
//!
//! Semantics, the same in every kernel and in [`super::reference`]:
//! * **Integer sums widen**: a group's `i64` values are summed exactly in 128 bits (two words,
//!   add with carry), which no count of rows below 2^64 can overflow; totals over groups are
//!   exact `i128`. Nothing wraps.
//! * **Float sums** add a group's values in row order, starting from `+0.0`, in `f64`: every
//!   kernel keeps each group's rows in input order (scatters are stable, partitions are read
//!   chunk by chunk), so a group's sum is bit-for-bit the same in every kernel and the
//!   reference, and kernels are checked exactly. Against the exact sum (or another engine,
//!   which adds in its own order) a group's sum is within the recursive-summation bound
//!   `(n - 1) * f64::EPSILON * sum(|v|)` for its `n` rows (a test holds it to that bound);
//!   compare another engine's float totals within that bound, not bit for bit.
//!   NaN and infinities follow IEEE 754: a NaN value makes its group's sum and avg NaN, `+inf`
//!   and `-inf` in one group make it NaN.
//! * **Float min and max** follow IEEE 754's total order (`f64::total_cmp`): `-NaN < -inf <
//!   ... < -0.0 < +0.0 < ... < +inf < +NaN`. So they are exact and order-independent: a
//!   (positive) NaN is the max of its group and never its min unless all its values are NaN,
//!   and `-0.0` is below `+0.0`.
//! * **avg** is `sum / count` in `f64` (an integer sum rounded once to `f64` first).
//! * **Totals** (`runs[].totals`) are the sums over all groups of each aggregate's per-group
//!   value: exact in `i128` for integers, and for floats the exact sum of the per-group `f64`
//!   results ([`ExactSum`](exact::ExactSum), order-independent) rounded to `f64` by one fixed procedure, so
//!   kernels agree on them bit for bit.

pub(crate) mod aggregates;
pub(crate) mod column;
pub(crate) mod exact;
mod states;

pub use aggregates::Aggregates;
pub(crate) use aggregates::StateKind;
pub use column::{ValueColumn, ValueType, Values};
pub(crate) use states::{Count, Full, MinMax, RowValue, State, Sum};

#[cfg(test)]
mod tests {
    use super::exact::ExactSum;
    use super::states::Num;
    use super::*;

    #[test]
    fn aggregates_parse_and_name() {
        let all = Aggregates::parse("avg, count,SUM,min,max,sum").unwrap();
        assert_eq!(all.names(), ["count", "sum", "min", "max", "avg"]);
        assert_eq!(all.kind(), StateKind::Full);
        assert_eq!(Aggregates::parse("count").unwrap(), Aggregates::COUNT);
        assert!(!Aggregates::COUNT.needs_values());
        assert_eq!(Aggregates::parse("avg").unwrap().kind(), StateKind::Sum);
        assert_eq!(Aggregates::parse("max,count").unwrap().kind(), StateKind::MinMax);
        assert!(Aggregates::parse("count,median").unwrap_err().contains("median"));
        assert!(Aggregates::parse("").is_err());
        assert_eq!(ValueType::parse("F64"), Ok(ValueType::F64));
        assert!(ValueType::parse("u8").is_err());
    }

    #[test]
    fn state_sizes_are_what_they_claim() {
        assert_eq!(size_of::<Count>() as u64, Aggregates::COUNT.state_bytes(ValueType::I64));
        assert_eq!(size_of::<Sum<i64>>() as u64, Aggregates::SUM.state_bytes(ValueType::I64));
        assert_eq!(size_of::<Sum<f64>>() as u64, Aggregates::SUM.state_bytes(ValueType::F64));
        assert_eq!(size_of::<MinMax<i64>>() as u64, Aggregates::MIN.state_bytes(ValueType::I64));
        assert_eq!(size_of::<Full<i64>>() as u64, Aggregates::parse("sum,min").unwrap().state_bytes(ValueType::I64));
        assert_eq!(size_of::<Full<f64>>() as u64, Aggregates::parse("avg,max").unwrap().state_bytes(ValueType::F64));
    }

    #[test]
    fn integer_sums_widen_past_i64() {
        let mut sum = [0u64; 2];
        for v in [i64::MAX, i64::MAX, 1, i64::MIN, -5] {
            i64::add(&mut sum, v);
        }
        let exact = (i128::from(sum[1] as i64) << 64) | i128::from(sum[0]);
        assert_eq!(exact, 2 * i128::from(i64::MAX) + 1 + i128::from(i64::MIN) - 5);
        let mut low = [0u64; 2];
        (0..3).for_each(|_| i64::add(&mut low, i64::MIN));
        assert_eq!((i128::from(low[1] as i64) << 64) | i128::from(low[0]), 3 * i128::from(i64::MIN));
    }

    #[test]
    fn float_min_max_follow_the_total_order() {
        let mut state = MinMax::<f64>::EMPTY;
        for v in [0.0, f64::NAN, -0.0, 3.5, f64::NEG_INFINITY] {
            state.update(v);
        }
        assert!(state.part.max.is_nan());
        assert_eq!(state.part.min, f64::NEG_INFINITY);
        let mut zeros = MinMax::<f64>::EMPTY;
        [0.0, -0.0].into_iter().for_each(|v| zeros.update(v));
        assert!(zeros.part.min.is_sign_negative() && zeros.part.max.is_sign_positive());
        let mut ints = Full::<i64>::EMPTY;
        [5, i64::MIN, i64::MAX].into_iter().for_each(|v| ints.update(v));
        assert_eq!((ints.part.1.min, ints.part.1.max, ints.count), (i64::MIN, i64::MAX, 3));
    }

    /// `rows` split at every point and the two parts' states merged: the state of all the rows,
    /// an empty part on either side changing nothing.
    fn merges_as_one<S: State<Value = V>, V: Copy>(rows: &[V]) {
        let of = |rows: &[V]| {
            let mut state = S::EMPTY;
            rows.iter().for_each(|&v| state.update(v));
            state
        };
        let whole = of(rows);
        for at in 0..=rows.len() {
            let mut merged = of(&rows[..at]);
            merged.merge(&of(&rows[at..]));
            assert_eq!(merged, whole, "split at {at}");
        }
    }

    #[test]
    fn split_states_merge_into_the_whole() {
        let ints = [7, i64::MIN, 0, i64::MAX, -3, 7];
        merges_as_one::<Sum<i64>, _>(&ints);
        merges_as_one::<MinMax<i64>, _>(&ints);
        merges_as_one::<Full<i64, true>, _>(&ints);
        // Float sums merge exactly only where the parts' sums round alike: small integers do.
        let floats = [2.0, -0.0, 0.0, f64::NEG_INFINITY, 5.0, -1.0];
        merges_as_one::<MinMax<f64>, _>(&floats);
        merges_as_one::<Full<f64>, _>(&[2.0, 3.0, -1.0, 8.0]);
        let mut full = Full::<i64>::EMPTY;
        [4, -2, 9].into_iter().for_each(|v| full.update(v));
        assert_eq!((full.count, full.part.0.sum, full.part.1.min, full.part.1.max), (3, [11, 0], -2, 9));
    }

    #[test]
    fn exact_sums_ignore_order_and_keep_tiny_terms() {
        let values = [1e308, 1.0, -1e308, 5e-324, f64::MIN_POSITIVE, -3.25, 1e-300, 7.0];
        let mut forward = ExactSum::default();
        values.iter().for_each(|&v| forward.add(v));
        let mut backward = ExactSum::default();
        values.iter().rev().for_each(|&v| backward.add(v));
        assert_eq!(forward.value().to_bits(), backward.value().to_bits());
        // Naive addition loses the 1.0 to 1e308; the exact sum does not.
        assert_eq!(forward.value(), 1.0 - 3.25 + 7.0 + 1e-300);
        let mut split = ExactSum::default();
        let mut rest = ExactSum::default();
        values[..3].iter().for_each(|&v| split.add(v));
        values[3..].iter().for_each(|&v| rest.add(v));
        split.merge(&rest);
        assert_eq!(split.value().to_bits(), forward.value().to_bits());
        let mut special = ExactSum::default();
        special.add(f64::INFINITY);
        assert_eq!(special.value(), f64::INFINITY);
        special.add(f64::NEG_INFINITY);
        assert!(special.value().is_nan());
        assert_eq!(ExactSum::default().value(), 0.0);
        let mut max = ExactSum::default();
        max.add(f64::MAX);
        max.add(f64::MAX);
        assert_eq!(max.value(), f64::INFINITY, "beyond f64: rounds to infinity");
    }

    #[test]
    fn a_row_order_float_sum_stays_within_the_stated_bound() {
        // Magnitudes 1e-3 to 1e12, both signs: the f64 sum in row order against the exact one.
        let mut rng = fastrand::Rng::with_seed(12);
        for n in [10usize, 1000, 100_000] {
            let values: Vec<f64> = (0..n).map(|_| (rng.f64() - 0.5) * 10f64.powi(rng.i32(-3..=12))).collect();
            let mut state = Sum::<f64>::EMPTY;
            let mut exact = ExactSum::default();
            values.iter().for_each(|&v| {
                state.update(v);
                exact.add(v);
            });
            let bound = (n - 1) as f64 * f64::EPSILON * values.iter().map(|v| v.abs()).sum::<f64>();
            assert!((state.part.sum - exact.value()).abs() <= bound, "{n}: {} vs {}", state.part.sum, exact.value());
        }
    }
}
