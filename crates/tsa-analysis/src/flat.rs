//! Flat row values: a list inside a row keeps the row out of TOON's table form
//! (a header, then one line of values per row), so row fields that hold lists are
//! written as one string. The engines keep the typed lists; only the answer joins.

use serde::Serializer;

/// Writes names (which hold no spaces) as one string, separated by spaces
/// (`["a", "b"]` -> `"a b"`).
pub fn spaced<S: Serializer, T: AsRef<str>>(items: &[T], s: S) -> Result<S::Ok, S::Error> {
    let parts: Vec<&str> = items.iter().map(AsRef::as_ref).collect();
    s.serialize_str(&parts.join(" "))
}

/// Writes paths (which may hold spaces) as one string, separated by `", "`.
pub fn comma_spaced<S: Serializer>(items: &[String], s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&items.join(", "))
}

#[cfg(test)]
mod tests {
    #[derive(serde::Serialize)]
    struct Row {
        #[serde(serialize_with = "super::spaced")]
        names: Vec<String>,
        #[serde(serialize_with = "super::comma_spaced")]
        files: Vec<String>,
    }

    #[test]
    fn lists_become_one_string() {
        let r = Row {
            names: vec!["a".into(), "B.c".into()],
            files: vec!["x.py".into(), "my dir/y.py".into()],
        };
        assert_eq!(
            serde_json::to_value(&r).unwrap(),
            serde_json::json!({"names": "a B.c", "files": "x.py, my dir/y.py"})
        );
        let empty = Row {
            names: vec![],
            files: vec![],
        };
        assert_eq!(serde_json::to_value(&empty).unwrap()["names"], "");
    }
}
