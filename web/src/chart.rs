//! Charts drawn as SVG by hand: a log-x line chart (the ladder, the partitions sweep), a
//! horizontal bar chart (the race) and a scatter (the fleet). No chart library: these shapes are all memwall needs,
//! and a library would weigh more than the whole app.
//!
//! Both are keyboard-reachable (arrow keys move the readout), name themselves to screen readers,
//! and always sit next to a data table with the same numbers.

mod bar;
mod heatmap;
mod line;
mod model;
mod scale;
mod scatter;
mod timeline;

pub use bar::{Bar, BarChart};
pub use heatmap::{Cell, Heatmap};
pub use line::LineChart;
pub use model::*;
pub use scatter::{Dot, Group, ScatterChart};
pub use timeline::{Span, Timeline};
#[cfg(test)]
mod tests {
    use super::scale::{linear_ticks, log_ticks};
    use super::*;

    #[test]
    fn log_ticks_are_one_two_five_or_finer_on_narrow_ranges() {
        assert_eq!(log_ticks(1.0, 100.0, 9), vec![1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0]);
        assert_eq!(log_ticks(1.0, 1e6, 5), vec![1.0, 10.0, 100.0, 1e3, 1e4, 1e5, 1e6]);
        assert_eq!(log_ticks(1.1, 4.5, 9), vec![1.5, 2.0, 3.0, 4.0]);
    }

    #[test]
    fn linear_ticks_step_by_one_two_five() {
        assert_eq!(linear_ticks(0.0, 10.0, 5.0), vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
        assert_eq!(linear_ticks(0.0, 130.0, 5.0), vec![0.0, 50.0, 100.0]);
    }

    #[test]
    fn numbers_keep_three_significant_digits() {
        assert_eq!(format_number(1.2345), "1.23");
        assert_eq!(format_number(12.0), "12");
        assert_eq!(format_number(250.4), "250");
        assert_eq!(format_number(0.5), "0.5");
        assert_eq!(format_number(f64::NAN), "–");
        assert_eq!(XFormat::Bytes.format(16384.0), "16 KiB");
    }
}
