//! Which argument types the functions take, and the planning errors that
//! name them.

use datafusion::arrow::datatypes::DataType;
use datafusion::common::{plan_err, Result};

/// The types named in errors, in the order users read them.
pub(crate) const ACCEPTED: &str = "Utf8, LargeUtf8, Utf8View, Binary, LargeBinary, BinaryView, \
     FixedSizeBinary, or a Dictionary of one of these";

/// Whether a column of `data_type` is hashed as it is.
pub(crate) fn is_accepted(data_type: &DataType) -> bool {
    match data_type {
        DataType::Dictionary(_, values) => is_bytes(values),
        other => is_bytes(other),
    }
}

fn is_bytes(data_type: &DataType) -> bool {
    matches!(
        data_type,
        DataType::Utf8
            | DataType::LargeUtf8
            | DataType::Utf8View
            | DataType::Binary
            | DataType::LargeBinary
            | DataType::BinaryView
            | DataType::FixedSizeBinary(_)
    )
}

/// The types `name`'s arguments are given as: every accepted type as it is
/// (no cast, so that no column is copied before it is hashed), and an
/// untyped `NULL` as `Utf8`, as DataFusion's `md5(NULL)` takes it.
pub(crate) fn coerce(name: &str, arg_types: &[DataType]) -> Result<Vec<DataType>> {
    let [arg] = arg_types else {
        return plan_err!(
            "{name} takes 1 argument ({ACCEPTED}), got {}",
            arg_types.len()
        );
    };
    match arg {
        DataType::Null => Ok(vec![DataType::Utf8]),
        accepted if is_accepted(accepted) => Ok(vec![accepted.clone()]),
        other => plan_err!("{name} takes {ACCEPTED}; got {other}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_the_byte_types_and_their_dictionaries() {
        let dict = |v: DataType| DataType::Dictionary(Box::new(DataType::Int32), Box::new(v));
        for t in [
            DataType::Utf8,
            DataType::LargeUtf8,
            DataType::Utf8View,
            DataType::Binary,
            DataType::LargeBinary,
            DataType::BinaryView,
            DataType::FixedSizeBinary(16),
            dict(DataType::Utf8View),
            dict(DataType::FixedSizeBinary(3)),
        ] {
            assert_eq!(coerce("md5x", std::slice::from_ref(&t)).unwrap(), [t]);
        }
        assert_eq!(coerce("md5x", &[DataType::Null]).unwrap(), [DataType::Utf8]);
    }

    #[test]
    fn refuses_other_types_and_arities_naming_what_it_takes() {
        let dict_of_int = DataType::Dictionary(Box::new(DataType::Int8), Box::new(DataType::Int64));
        for t in [DataType::Int64, DataType::Boolean, dict_of_int] {
            let err = coerce("md5x", std::slice::from_ref(&t))
                .unwrap_err()
                .to_string();
            assert!(err.contains("md5x takes Utf8, LargeUtf8"), "{err}");
            assert!(err.contains(&format!("got {t}")), "{err}");
        }
        for args in [vec![], vec![DataType::Utf8, DataType::Utf8]] {
            let err = coerce("md5x_binary", &args).unwrap_err().to_string();
            assert!(err.contains("md5x_binary takes 1 argument"), "{err}");
            assert!(err.contains(&format!("got {}", args.len())), "{err}");
        }
    }
}
