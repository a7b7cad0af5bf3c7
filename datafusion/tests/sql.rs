//! The functions through a SessionContext: registered, called from SQL on
//! a table of every input type, against md5 in the same query; their
//! result types and nullability; override_md5; planning errors.

mod common;

use common::*;
use datafusion::arrow::array::{Array, ArrayRef, AsArray, RecordBatch};
use datafusion::arrow::datatypes::{Field, Schema};
use datafusion::datasource::MemTable;
use datafusion::error::Result;
use datafusion::execution::FunctionRegistry;
use datafusion::prelude::SessionContext;
use std::sync::Arc;

fn block_on<T>(future: impl std::future::Future<Output = T>) -> T {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(future)
}

/// A table `t` with a column per input type (c0, c1, ...), 10,000 rows in
/// batches of 1,000, and `ctx` with md5x registered.
fn context() -> (SessionContext, Vec<Field>) {
    let rows = 10_000;
    let texts = texts(11, rows);
    let blobs = blobs(12, rows);
    let mut columns: Vec<ArrayRef> = columns(&texts, &blobs);
    columns.push(fixed(13, rows, 56));
    columns.push(dictionary(14, rows, columns[0].slice(0, 300)));
    let fields: Vec<Field> = columns
        .iter()
        .enumerate()
        .map(|(i, c)| Field::new(format!("c{i}"), c.data_type().clone(), true))
        .collect();
    let schema = Arc::new(Schema::new(fields.clone()));
    let batches = (0..rows)
        .step_by(1_000)
        .map(|at| {
            let parts = columns.iter().map(|c| c.slice(at, 1_000)).collect();
            RecordBatch::try_new(Arc::clone(&schema), parts).unwrap()
        })
        .collect();
    let table = MemTable::try_new(schema, vec![batches]).unwrap();
    let ctx = SessionContext::new();
    ctx.register_table("t", Arc::new(table)).unwrap();
    md5x_datafusion::register(&ctx);
    (ctx, fields)
}

async fn count(ctx: &SessionContext, sql: &str) -> Result<i64> {
    let batches = ctx.sql(sql).await?.collect().await?;
    let counts = batches[0]
        .column(0)
        .as_primitive::<datafusion::arrow::datatypes::Int64Type>();
    Ok(counts.value(0))
}

#[test]
fn sql_results_equal_md5_for_every_column() {
    let (ctx, fields) = context();
    block_on(async {
        for field in &fields {
            let c = field.name();
            // md5 takes a fixed-width or dictionary column as Binary or its
            // values, as the oracle's casts do.
            let md5_arg = match field.data_type() {
                datafusion::arrow::datatypes::DataType::FixedSizeBinary(_) => {
                    format!("arrow_cast({c}, 'Binary')")
                }
                _ => c.to_string(),
            };
            let sql = format!(
                "SELECT count(*) FROM t WHERE (md5x({c}) IS DISTINCT FROM md5({md5_arg})) \
                 OR (md5x_binary({c}) IS DISTINCT FROM digest({md5_arg}, 'md5')) \
                 OR ((md5x({c}) IS NULL) <> ({c} IS NULL))"
            );
            assert_eq!(count(&ctx, &sql).await.unwrap(), 0, "{sql}");
            let sql = format!("SELECT count(*) FROM t WHERE {c} IS NOT NULL");
            assert!(count(&ctx, &sql).await.unwrap() > 8_000, "{sql}");
        }
    });
}

#[test]
fn result_types_and_nullability_are_md5s() {
    let (ctx, _) = context();
    block_on(async {
        for c in ["c0", "c1", "c2", "c3", "c4", "c5"] {
            let df = ctx
                .sql(&format!(
                    "SELECT md5({c}) AS a, md5x({c}) AS b, md5x_binary({c}) AS c FROM t"
                ))
                .await
                .unwrap();
            let schema = df.schema().as_arrow().clone();
            let (a, b) = (schema.field(0), schema.field(1));
            assert_eq!(a.data_type(), b.data_type(), "{c}");
            assert_eq!(a.is_nullable(), b.is_nullable(), "{c}");
            assert_eq!(
                schema.field(2).data_type(),
                &datafusion::arrow::datatypes::DataType::Binary
            );
            // And the batches carry the planned types.
            let batches = df.collect().await.unwrap();
            assert_eq!(batches[0].schema().field(1).data_type(), a.data_type());
        }
    });
}

#[test]
fn override_md5_replaces_md5_and_keeps_its_results_and_names() {
    let (ctx, _) = context();
    block_on(async {
        let sql = "SELECT md5(c0), md5(c3), md5('abc') FROM t";
        let before = ctx.sql(sql).await.unwrap().collect().await.unwrap();
        md5x_datafusion::override_md5(&ctx);
        let udf = ctx.udf("md5").unwrap();
        assert!(
            udf.inner()
                .downcast_ref::<md5x_datafusion::Md5x>()
                .is_some(),
            "md5 is still DataFusion's"
        );
        let after = ctx.sql(sql).await.unwrap().collect().await.unwrap();
        assert_eq!(before, after);
        // A type DataFusion's md5 does not take, now taken.
        assert!(count(&ctx, "SELECT count(md5(c6)) FROM t").await.unwrap() > 8_000);
    });
}

#[test]
fn wrong_types_and_arities_are_planning_errors_naming_the_accepted_types() {
    let (ctx, _) = context();
    block_on(async {
        for (sql, name, said) in [
            ("SELECT md5x(1)", "md5x", "got Int64"),
            ("SELECT md5x_binary(true)", "md5x_binary", "got Boolean"),
            (
                "SELECT md5x(arrow_cast(1, 'Dictionary(Int32, Int64)'))",
                "md5x",
                "got Dictionary(Int32, Int64)",
            ),
            ("SELECT md5x('a', 'b')", "md5x", "got 2"),
            ("SELECT md5x_binary()", "md5x_binary", ""),
        ] {
            let err = match ctx.sql(sql).await {
                Ok(df) => df.collect().await.map(|_| ()).unwrap_err(),
                Err(err) => err,
            };
            let message = err.to_string();
            assert!(
                matches!(err.find_root(), datafusion::error::DataFusionError::Plan(_)),
                "{sql}: not a planning error: {message}"
            );
            assert!(message.contains(name), "{sql}: {message}");
            assert!(
                message.contains("Utf8, LargeUtf8, Utf8View, Binary"),
                "{sql}: {message}"
            );
            assert!(message.contains(said), "{sql}: {message}");
        }
    });
}

#[test]
fn null_and_empty_literals() {
    let (ctx, _) = context();
    block_on(async {
        let batches = ctx
            .sql("SELECT md5x(NULL), md5x(''), md5x_binary(NULL), md5(NULL)")
            .await
            .unwrap()
            .collect()
            .await
            .unwrap();
        let row = &batches[0];
        assert!(row.column(0).is_null(0));
        assert_eq!(
            row.column(1).as_string_view().value(0),
            "d41d8cd98f00b204e9800998ecf8427e"
        );
        assert!(row.column(2).is_null(0));
        assert_eq!(row.column(0).data_type(), row.column(3).data_type());
    });
}
