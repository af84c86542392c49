//! The GROUP BY race's form: rows, distinct keys, skew, runs, kernels, aggregates, partitions;
//! as typed or as the URL set them (`?rows=&keys=&skew=&runs=&kernels=&agg=&value=`), and the
//! data and race they describe, refused in words when they cannot run here.

use std::collections::BTreeSet;

use memwall_core::datagen::{self, Skew};
use memwall_core::groupby::{self, GroupByConfig, Kernel, ValueType};

use super::job::{self, DataJob};
use crate::races::sizing::Sizing;
use crate::util;

/// The preset the page starts from (the CLI's `small`: 10 M rows, 1.7 M keys, ClickBench skew).
pub const PRESET: &str = "small";
/// Kernels raced unless the reader picks others.
const DEFAULT_KERNELS: [Kernel; 3] = [Kernel::Naive, Kernel::Radix, Kernel::Tuned];

#[derive(Debug, Clone, PartialEq)]
pub struct Form {
    pub rows: String,
    pub keys: String,
    pub skew: String,
    pub runs: String,
    /// The aggregates as a comma list and the value type, as `?agg=` and `?value=` gave them
    /// or the form set them: parsed (and refused with a message) with the rest of the form.
    pub aggregates: String,
    pub value_type: String,
    pub kernels: BTreeSet<Kernel>,
    pub partitions: u32,
}

pub fn parse_count(text: &str, what: &str) -> Result<u64, String> {
    memwall_core::size::parse_count(text).map_err(|e| format!("{what}: {e}"))
}

impl Form {
    pub fn from_query() -> Self {
        let preset = datagen::preset(PRESET).expect("a built-in preset");
        Self {
            rows: util::query("rows").unwrap_or_else(|| preset.rows.to_string()),
            keys: util::query("keys").unwrap_or_else(|| preset.keys.to_string()),
            skew: util::query("skew").unwrap_or_else(|| preset.skew.name()),
            runs: util::query("runs").unwrap_or_else(|| "3".into()),
            aggregates: util::query("agg").unwrap_or_else(|| "count".into()),
            value_type: util::query("value").unwrap_or_else(|| ValueType::I64.name().into()),
            // `?kernels=tuned,naive` (embeds, measurements) or the default three.
            kernels: util::query("kernels")
                .map(|list| list.split(',').filter_map(Kernel::parse).collect::<BTreeSet<_>>())
                .filter(|k| !k.is_empty())
                .unwrap_or_else(|| DEFAULT_KERNELS.into_iter().collect()),
            partitions: groupby::DEFAULT_PARTITIONS,
        }
    }

    /// The data the form describes, or a one-line reason why it cannot be raced here (its memory
    /// counted for the kernels sized by `sizing`).
    pub fn data(&self, sizing: &Sizing) -> Result<DataJob, String> {
        let rows = parse_count(&self.rows, "rows")?;
        let keys = parse_count(&self.keys, "distinct keys")?;
        let preset = datagen::preset(PRESET).expect("a built-in preset");
        let skew = Skew::parse(&self.skew)?;
        let data = DataJob {
            rows,
            keys,
            skew: skew.name(),
            seed: preset.seed,
            preset: (rows == preset.rows && keys == preset.keys && skew == preset.skew).then(|| PRESET.to_string()),
            aggregates: self.aggregates.clone(),
            value_type: self.value_type.clone(),
        };
        let (aggregates, _) = data.query()?;
        data.spec()?;
        if rows == 0 {
            return Err("there must be at least one row".into());
        }
        let kernels: Vec<Kernel> = self.kernels.iter().copied().collect();
        let config =
            GroupByConfig { partitions: self.partitions, aggregates, budget: sizing.budget(), host: sizing.host() };
        util::fits_in_browser(job::bytes_needed(&data, &kernels, &config))?;
        Ok(data)
    }

    pub fn runs(&self) -> u32 {
        self.runs.parse().unwrap_or(3).clamp(1, 50)
    }

    /// What an embed of this race carries.
    pub fn embed_params(&self) -> Vec<(String, String)> {
        vec![
            ("rows".to_string(), self.rows.clone()),
            ("keys".to_string(), self.keys.clone()),
            ("kernels".to_string(), self.kernels.iter().map(|k| k.name()).collect::<Vec<_>>().join(",")),
            ("agg".to_string(), self.aggregates.clone()),
            ("value".to_string(), self.value_type.clone()),
        ]
    }

    /// The skews the form offers: (value, label).
    pub fn skews() -> [(String, String); 2] {
        [
            ("uniform".to_string(), "uniform".to_string()),
            (
                Skew::Zipf(datagen::CLICKBENCH_ZIPF).name(),
                format!("ClickBench-like (Zipf {})", datagen::CLICKBENCH_ZIPF),
            ),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_accept_separators_and_refuse_the_rest() {
        assert_eq!(parse_count("10,000,000", "rows"), Ok(10_000_000));
        assert_eq!(parse_count("1_700_000", "keys"), Ok(1_700_000));
        assert_eq!(parse_count("1.7M", "keys"), Ok(1_700_000), "the CLI's grammar");
        assert!(parse_count("ten", "rows").unwrap_err().starts_with("rows: invalid count 'ten'"));
    }
}
