//! Light and dark, for the page (CSS variables) and for the charts, which draw with literal
//! colors so that an exported SVG or PNG looks the same outside the page.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Theme {
    Light,
    Dark,
}

impl Theme {
    /// The reader's system preference.
    pub fn preferred() -> Self {
        let dark = web_sys::window()
            .and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten())
            .is_some_and(|m| m.matches());
        if dark { Self::Dark } else { Self::Light }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Light => "light",
            Self::Dark => "dark",
        }
    }

    pub fn toggled(self) -> Self {
        match self {
            Self::Light => Self::Dark,
            Self::Dark => Self::Light,
        }
    }

    pub fn palette(self) -> Palette {
        match self {
            Self::Light => Palette {
                background: "#ffffff",
                text: "#1b1f24",
                muted: "#5b6470",
                grid: "#e6e9ee",
                axis: "#9aa3ad",
                band: "rgba(214, 92, 42, 0.10)",
                band_text: "#a8441b",
                marker: "#6a4fc2",
                series: ["#1f6feb", "#d65c2a", "#1a7f37", "#a23fb5", "#b08800", "#0f7c8c", "#cf222e", "#57606a"],
            },
            Self::Dark => Palette {
                background: "#14171c",
                text: "#e6e9ee",
                muted: "#9aa3ad",
                grid: "#2a3038",
                axis: "#5b6470",
                band: "rgba(255, 140, 90, 0.12)",
                band_text: "#ffa27a",
                marker: "#b69cff",
                series: ["#5ea2ff", "#ff8c5a", "#56d364", "#d68cf0", "#e3b341", "#4fc8d8", "#ff7b72", "#a0a8b2"],
            },
        }
    }
}

/// Chart colors; `series[i]` colors the i-th line or bar group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Palette {
    pub background: &'static str,
    pub text: &'static str,
    pub muted: &'static str,
    pub grid: &'static str,
    pub axis: &'static str,
    pub band: &'static str,
    pub band_text: &'static str,
    pub marker: &'static str,
    pub series: [&'static str; 8],
}

impl Palette {
    pub fn color(&self, index: usize) -> &'static str {
        self.series[index % self.series.len()]
    }
}

/// The font stack charts name explicitly (an exported SVG has no page CSS to inherit from).
pub const CHART_FONT: &str = "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif";
