//! The startup schema check: which of the actions a proxy declares the backend does not serve,
//! judged from the OpenAPI document of `GET {basePath}/schema`. Pure Rust; the wasm layer extracts
//! the document's paths and methods and prints what this returns as console warnings.

/// One path of the backend's OpenAPI document and the methods it serves (lower case, as OpenAPI
/// writes them).
pub struct ServedPath {
    /// The path template, e.g. `/items/{pk}`.
    pub path: String,
    /// The methods, e.g. `["get", "put"]`.
    pub methods: Vec<String>,
}

/// Compares `expected` routes (`"<action> <METHOD> <suffix>"`, the suffix relative to `base_path`,
/// `/{pk}` standing for any path parameter) with what the backend serves; returns one sentence per
/// action the backend does not serve.
pub fn mismatches(base_path: &str, expected: &[String], served: &[ServedPath]) -> Vec<String> {
    let base = crate::compose::stream_path(base_path, "");
    let mut problems = Vec::new();
    for route in expected {
        let mut parts = route.splitn(3, ' ');
        let (Some(action), Some(method), Some(suffix)) = (parts.next(), parts.next(), parts.next()) else {
            continue;
        };
        let wanted = crate::compose::stream_path(&base, suffix);
        let served_here = served.iter().any(|entry| {
            same_template(&entry.path, &wanted) && entry.methods.iter().any(|m| m.eq_ignore_ascii_case(method))
        });
        if !served_here {
            problems.push(format!("the proxy declares {action}() but the backend serves no {method} {wanted}"));
        }
    }
    problems
}

/// Two path templates match when their segments are equal, any `{param}` matching any `{param}`.
fn same_template(served: &str, wanted: &str) -> bool {
    let is_param = |segment: &str| segment.starts_with('{') && segment.ends_with('}');
    let served: Vec<&str> = served.trim_matches('/').split('/').collect();
    let wanted: Vec<&str> = wanted.trim_matches('/').split('/').collect();
    served.len() == wanted.len()
        && served.iter().zip(&wanted).all(|(s, w)| s == w || (is_param(s) && is_param(w)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn served(path: &str, methods: &[&str]) -> ServedPath {
        ServedPath { path: path.into(), methods: methods.iter().map(|m| m.to_string()).collect() }
    }

    #[test]
    fn reports_only_actions_the_backend_lacks() {
        let doc = vec![served("/items", &["get", "post"]), served("/items/{id}", &["get", "put", "patch", "delete"])];
        let expected: Vec<String> = ["list GET ", "retrieve GET /{pk}", "destroy DELETE /{pk}", "lookup GET /lookup"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(
            mismatches("/items", &expected, &doc),
            vec!["the proxy declares lookup() but the backend serves no GET /items/lookup".to_string()]
        );
    }
}
