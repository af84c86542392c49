//! The value column of a query: its type, borrowed or held in memory.

/// The type of a value column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ValueType {
    I64,
    F64,
}

impl ValueType {
    pub fn name(self) -> &'static str {
        match self {
            Self::I64 => "i64",
            Self::F64 => "f64",
        }
    }

    pub fn parse(text: &str) -> Result<Self, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "i64" | "int64" => Ok(Self::I64),
            "f64" | "float64" | "double" => Ok(Self::F64),
            other => Err(format!("unknown value type '{other}': expected i64 or f64")),
        }
    }
}

/// The value column of a query, if it has one.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Values<'a> {
    #[default]
    None,
    I64(&'a [i64]),
    F64(&'a [f64]),
}

impl Values<'_> {
    pub fn rows(&self) -> Option<usize> {
        match self {
            Self::None => None,
            Self::I64(v) => Some(v.len()),
            Self::F64(v) => Some(v.len()),
        }
    }

    pub fn value_type(&self) -> Option<ValueType> {
        match self {
            Self::None => None,
            Self::I64(_) => Some(ValueType::I64),
            Self::F64(_) => Some(ValueType::F64),
        }
    }
}

/// A value column held in memory.
#[derive(Debug, Clone, PartialEq)]
pub enum ValueColumn {
    I64(Vec<i64>),
    F64(Vec<f64>),
}

impl ValueColumn {
    pub fn values(&self) -> Values<'_> {
        match self {
            Self::I64(v) => Values::I64(v),
            Self::F64(v) => Values::F64(v),
        }
    }

    pub fn value_type(&self) -> ValueType {
        match self {
            Self::I64(_) => ValueType::I64,
            Self::F64(_) => ValueType::F64,
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Self::I64(v) => v.len(),
            Self::F64(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
