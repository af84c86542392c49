//! What the GROUP BY race computes per group: the aggregate checkboxes and the value type, and
//! the totals the core's kernels report for them.

use memwall_core::groupby::{Aggregates, ValueType, summary};
use memwall_report::GroupBy;
use yew::prelude::*;

use crate::chart;

/// The aggregates in the order the CLI names them.
pub const NAMES: [&str; 5] = ["count", "sum", "min", "max", "avg"];

/// `list` with `name` added or removed; an unparsable list starts over from `name` alone.
pub fn toggle(list: &str, name: &str) -> String {
    let mut names: Vec<&str> = Aggregates::parse(list).map(Aggregates::names).unwrap_or_default();
    match names.iter().position(|n| *n == name) {
        Some(i) => {
            names.remove(i);
        }
        None => names.push(name),
    }
    // Parsing again puts them in the fixed order and drops repeats.
    Aggregates::parse(&names.join(",")).map(Aggregates::describe).unwrap_or_default()
}

/// The aggregates and value type the form names, or a line saying what is wrong with them.
pub fn parse(aggregates: &str, value_type: &str) -> Result<(Aggregates, ValueType), String> {
    if aggregates.trim().is_empty() {
        return Err("aggregates: pick at least one of count, sum, min, max, avg".into());
    }
    let aggregates = Aggregates::parse(aggregates).map_err(|e| format!("aggregates: {e}"))?;
    let value_type = ValueType::parse(value_type).map_err(|e| format!("value type: {e}"))?;
    Ok((aggregates, value_type))
}

#[derive(Debug, Properties, PartialEq)]
pub struct Props {
    /// The comma list, as typed or taken from `?agg=`.
    pub aggregates: AttrValue,
    pub value_type: AttrValue,
    pub disabled: bool,
    pub on_aggregates: Callback<String>,
    pub on_value_type: Callback<String>,
}

#[function_component(AggregateChoice)]
pub fn aggregate_choice(props: &Props) -> Html {
    let chosen = Aggregates::parse(&props.aggregates).map(Aggregates::names).unwrap_or_default();
    let state = parse(&props.aggregates, &props.value_type)
        .ok()
        .map(|(a, v)| format!("{} bytes of state a group ({} with its key)", a.state_bytes(v), 8 + a.state_bytes(v)));
    let on_value = {
        let on = props.on_value_type.clone();
        Callback::from(move |e: Event| {
            on.emit(chart::target::<web_sys::HtmlSelectElement>(&e).map(|s| s.value()).unwrap_or_default())
        })
    };
    html! {
        <fieldset class="checks aggregates">
            <legend>{ "Aggregates" }</legend>
            { for NAMES.iter().map(|&name| {
                let (on, list) = (props.on_aggregates.clone(), props.aggregates.to_string());
                html! {
                    <label class="check">
                        <input type="checkbox" checked={chosen.contains(&name)} disabled={props.disabled}
                            onchange={Callback::from(move |_| on.emit(toggle(&list, name)))} />
                        <strong>{ name }</strong>
                    </label>
                }
            }) }
            <label>{ "Value type" }
                <select disabled={props.disabled} onchange={on_value}>
                    { for [ValueType::I64, ValueType::F64].into_iter().map(|t| html! {
                        <option value={t.name()} selected={t.name() == props.value_type.as_str()}>{ t.name() }</option>
                    }) }
                </select>
            </label>
            if let Some(state) = state { <p class="muted small">{ state }</p> }
        </fieldset>
    }
}

/// Each kernel's totals as the core reported them (the checks already held them equal).
pub fn totals_table(groupby: &GroupBy) -> Html {
    let Some(first) = groupby.runs.iter().find_map(|r| r.totals.as_ref()) else { return html! {} };
    let columns: Vec<&str> = summary::named_totals(first).into_iter().map(|(name, _)| name).collect();
    let query = groupby
        .query
        .as_ref()
        .map(|q| format!("{} over generated {} values", q.aggregates.join(", "), q.value_type))
        .unwrap_or_else(|| "count".into());
    html! {
        <div class="table-wrap">
            <table class="data" id="groupby-totals">
                <caption>{ format!("Totals over all groups: {query}") }</caption>
                <thead><tr>
                    <th scope="col">{ "kernel" }</th>
                    { for columns.iter().map(|c| html! { <th scope="col">{ format!("total {c}") }</th> }) }
                </tr></thead>
                <tbody>
                    { for groupby.runs.iter().map(|r| {
                        let named = r.totals.as_ref().map(summary::named_totals).unwrap_or_default();
                        html! {
                            <tr>
                                <th scope="row">{ r.kernel.clone() }</th>
                                { for columns.iter().map(|c| html! {
                                    <td><code>{ named.iter().find(|(n, _)| n == c).map_or("–".to_string(), |(_, v)| v.clone()) }</code></td>
                                }) }
                            </tr>
                        }
                    }) }
                </tbody>
            </table>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toggling_keeps_the_cli_order_and_drops_the_last() {
        assert_eq!(toggle("count", "avg"), "count,avg");
        assert_eq!(toggle("avg,count", "sum"), "count,sum,avg");
        assert_eq!(toggle("count,sum", "count"), "sum");
        assert_eq!(toggle("sum", "sum"), "");
        assert_eq!(toggle("bogus", "min"), "min");
    }

    #[test]
    fn bad_choices_are_one_line_each() {
        assert_eq!(parse("sum,count", "F64").unwrap(), (Aggregates::parse("count,sum").unwrap(), ValueType::F64));
        assert!(parse("", "i64").unwrap_err().contains("pick at least one"));
        let bad = parse("sum,median", "i64").unwrap_err();
        assert!(bad.starts_with("aggregates: unknown aggregate 'median'"), "{bad}");
        assert!(parse("sum", "u8").unwrap_err().starts_with("value type: unknown value type 'u8'"));
    }
}
