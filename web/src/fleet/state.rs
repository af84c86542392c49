//! What the Fleet tab holds: one row per report read (never the report itself: a thousand
//! reports would be a hundred megabytes; a row is opened again from where it came from), the
//! reports that could not be read, the prices joined, and how the table is sorted, filtered and
//! which rows are picked.

use std::collections::BTreeSet;
use std::rc::Rc;

use memwall_core::fleet::prices::Prices;
use memwall_core::fleet::{self, Filter};
use memwall_report::fleet::{FleetRow, Unreadable};
use yew::prelude::*;

/// Where a row's report is, to open it again.
#[derive(Debug, Clone, PartialEq)]
pub enum Origin {
    Url(String),
    File(web_sys::File),
    /// The cloud shelf's type at this index (the Cloud tab's rows: no report of their own).
    Shelf(usize),
}

impl Origin {
    /// How the Reports page names the report's origin: the same report opened twice is found.
    pub fn name(&self) -> String {
        match self {
            Self::Url(url) => url.clone(),
            Self::File(file) => file.name(),
            Self::Shelf(index) => format!("cloud shelf #{index}"),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Host {
    /// Stable while the page lives: the key of its table row and its pick.
    pub id: u32,
    pub row: FleetRow,
    pub origin: Origin,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct FleetState {
    /// Where the rows come from, in words ("memwall serve", an index's URL, "files").
    pub source: Option<String>,
    pub hosts: Rc<Vec<Host>>,
    pub unreadable: Rc<Vec<Unreadable>>,
    /// Reports listed but not read yet.
    pub pending: usize,
    /// Why the list of reports itself could not be read.
    pub error: Option<String>,
    pub prices: Option<Rc<Prices>>,
    /// Names in the prices CSV that match no row, or why the CSV could not be used.
    pub prices_note: Option<String>,
    /// Column and descending; `None`: in the order read.
    pub sort: Option<(String, bool)>,
    /// The filter box's text, and why a term of it is refused.
    pub filter: String,
    pub filter_error: Option<String>,
    filters: Rc<Vec<Filter>>,
    /// Words of the filter box without an operator, lowercase.
    words: Rc<Vec<String>>,
    pub picked: BTreeSet<u32>,
    next_id: u32,
}

#[derive(Debug)]
pub enum FleetAction {
    /// A new list of `count` reports from `source` is being read: what was there goes.
    Begin {
        source: String,
        count: usize,
    },
    /// The list could not be read (its URL, its JSON).
    Failed(String),
    /// Rows read, and reports not read, since the last batch.
    Batch {
        rows: Vec<(FleetRow, Origin)>,
        unreadable: Vec<Unreadable>,
    },
    Prices(Result<Prices, String>),
    /// Sort by this column; the same column again reverses.
    SortBy(String),
    Filter(String),
    Pick(u32),
    ClearPicks,
}

impl Reducible for FleetState {
    type Action = FleetAction;

    fn reduce(self: Rc<Self>, action: FleetAction) -> Rc<Self> {
        let mut next = (*self).clone();
        match action {
            FleetAction::Begin { source, count } => {
                next = Self {
                    prices: next.prices.take(),
                    sort: next.sort.take(),
                    next_id: next.next_id,
                    ..Self::default()
                };
                next.source = Some(source);
                next.pending = count;
                next.set_filter(self.filter.clone());
            }
            FleetAction::Failed(message) => {
                next.error = Some(message);
                next.pending = 0;
            }
            FleetAction::Batch { rows, unreadable } => {
                next.pending = next.pending.saturating_sub(rows.len() + unreadable.len());
                let hosts = Rc::make_mut(&mut next.hosts);
                for (row, origin) in rows {
                    next.next_id += 1;
                    hosts.push(Host { id: next.next_id, row, origin });
                }
                Rc::make_mut(&mut next.unreadable).extend(unreadable);
                next.join_prices();
                next.apply_sort();
            }
            FleetAction::Prices(Ok(prices)) => {
                next.prices = Some(Rc::new(prices));
                next.join_prices();
                // A filter may name a price column that is only now known.
                next.set_filter(self.filter.clone());
                next.apply_sort();
            }
            FleetAction::Prices(Err(e)) => next.prices_note = Some(e),
            FleetAction::SortBy(column) => {
                let descending = next.sort.as_ref().is_some_and(|(c, d)| *c == column && !d);
                next.sort = Some((column, descending));
                next.apply_sort();
            }
            FleetAction::Filter(text) => next.set_filter(text),
            FleetAction::Pick(id) => {
                if !next.picked.remove(&id) {
                    next.picked.insert(id);
                }
            }
            FleetAction::ClearPicks => next.picked.clear(),
        }
        Rc::new(next)
    }
}

impl FleetState {
    /// The price columns joined, for the table and the filter.
    pub fn price_columns(&self) -> &[String] {
        self.prices.as_deref().map_or(&[], Prices::columns)
    }

    /// The hosts the filter keeps, in the table's order.
    pub fn shown(&self) -> Vec<&Host> {
        let named = |row: &FleetRow, word: &String| {
            [Some(&row.host), row.cpu.as_ref(), Some(&row.report)]
                .into_iter()
                .flatten()
                .any(|t| t.to_lowercase().contains(word))
        };
        self.hosts
            .iter()
            .filter(|h| self.filters.iter().all(|f| f.keeps(&h.row)) && self.words.iter().all(|w| named(&h.row, w)))
            .collect()
    }

    fn join_prices(&mut self) {
        let Some(prices) = self.prices.clone() else { return };
        let unmatched = prices.join(Rc::make_mut(&mut self.hosts).iter_mut().map(|h| &mut h.row));
        // Said only once every report is read: until then a name may match a row still coming.
        self.prices_note = (self.pending == 0 && !unmatched.is_empty())
            .then(|| format!("No report or host is called {} (prices CSV).", unmatched.join(", ")));
    }

    fn apply_sort(&mut self) {
        if let Some((column, descending)) = &self.sort {
            Rc::make_mut(&mut self.hosts).sort_by(|a, b| fleet::compare(&a.row, &b.row, column, *descending));
        }
    }

    /// The filter box takes what `memwall fleet --filter` takes, several terms separated by
    /// spaces or commas (`hypervisor=kvm dram_ns<100`); a word without `=`, `<` or `>` keeps the
    /// rows whose host, CPU or report name holds it.
    fn set_filter(&mut self, text: String) {
        let joined = self.price_columns().to_vec();
        let (mut filters, mut words) = (Vec::new(), Vec::new());
        self.filter_error = None;
        for term in text.split([' ', ',']).filter(|t| !t.is_empty()) {
            if !term.contains(['=', '<', '>']) {
                words.push(term.to_lowercase());
                continue;
            }
            match Filter::parse_among(term, &joined) {
                Ok(filter) => filters.push(filter),
                Err(e) => self.filter_error = Some(e.to_string()),
            }
        }
        self.filter = text;
        self.filters = Rc::new(filters);
        self.words = Rc::new(words);
    }
}
