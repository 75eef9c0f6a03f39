//! What a plot shows, apart from how it is drawn: categories along x
//! (a workload's parameters), one bar series per configuration, each
//! bar a value with its spread over runs where the mode is timed. The
//! title always names the mode, and a chart is built from one
//! [`Table`], which never mixes modes.

use crate::table::Table;

/// One bar: the figure and, for timed modes, its min–max over runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bar {
    pub value: f64,
    pub spread: Option<(f64, f64)>,
}

/// One configuration's bars, one slot per category.
#[derive(Clone, Debug)]
pub struct Series {
    pub name: String,
    pub bars: Vec<Option<Bar>>,
}

/// A grouped bar chart.
#[derive(Clone, Debug)]
pub struct Chart {
    pub title: String,
    pub y_label: String,
    pub categories: Vec<String>,
    pub series: Vec<Series>,
}

/// How a table's figures were chosen, for titles and captions.
pub fn how(table: &Table) -> String {
    let most = table
        .params
        .iter()
        .flat_map(|p| table.configs.iter().filter_map(move |c| table.cell(p, c)))
        .map(|f| f.runs)
        .max()
        .unwrap_or(0);
    if table.timed() {
        let runs = if most == 1 {
            "1 run".to_owned()
        } else {
            format!("up to {most} runs")
        };
        format!("mode {}: median of {runs}, whiskers min–max", table.mode)
    } else {
        format!("mode {}: exact, latest run", table.mode)
    }
}

impl Chart {
    /// The chart of `table`: its parameters along x, its configurations
    /// as series.
    pub fn of(table: &Table) -> Chart {
        let series = table
            .configs
            .iter()
            .map(|c| Series {
                name: c.clone(),
                bars: table
                    .params
                    .iter()
                    .map(|p| {
                        table.cell(p, c).map(|f| Bar {
                            value: f.value,
                            spread: (!f.exact).then_some((f.min, f.max)),
                        })
                    })
                    .collect(),
            })
            .collect();
        Chart {
            title: format!("{} — {} ({})", table.bench, table.metric, how(table)),
            y_label: table.unit.clone(),
            categories: table.params.clone(),
            series,
        }
    }

    /// The smallest and largest value drawn (spreads included), if any.
    pub fn extent(&self) -> Option<(f64, f64)> {
        let mut all = self
            .series
            .iter()
            .flat_map(|s| s.bars.iter().flatten())
            .flat_map(|b| {
                let (lo, hi) = b.spread.unwrap_or((b.value, b.value));
                [b.value, lo, hi]
            });
        let first = all.next()?;
        Some(all.fold((first, first), |(lo, hi), v| (lo.min(v), hi.max(v))))
    }
}
