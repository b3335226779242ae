//! Hostile inputs: small documents built to take a parser down, for the tests that check each
//! ends in a clear error (and for the app's crafted fixtures).

/// The opening of a "billion laughs" XML document: a DOCTYPE of `root` declaring `lol` and
/// `lol1`…`lol9`, each ten references to the one before (under 1 KB; 10^9 "lol"s once
/// expanded), left open for the caller to close (`]>`) and reference the returned last entity.
pub fn laughs_doctype(root: &str) -> (String, &'static str) {
    let mut doc = format!("<?xml version=\"1.0\"?>\n<!DOCTYPE {root} [\n<!ENTITY lol \"lol\">\n");
    let mut prev = "lol".to_owned();
    for i in 1..10 {
        let name = format!("lol{i}");
        let refs = format!("&{prev};").repeat(10);
        doc.push_str(&format!("<!ENTITY {name} \"{refs}\">\n"));
        prev = name;
    }
    (doc, "lol9")
}

/// A "billion laughs" RDF/XML document: one property value is the last entity of
/// [`laughs_doctype`].
pub fn billion_laughs_rdf_xml() -> String {
    let (mut doc, last) = laughs_doctype("rdf:RDF");
    doc.push_str(&format!(
        "]>\n<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\" \
         xmlns:e=\"http://e/\"><rdf:Description rdf:about=\"http://e/x\"><e:p>&{last};</e:p>\
         </rdf:Description></rdf:RDF>\n"
    ));
    doc
}

/// A JSON-LD document whose one value is nested `depth` arrays deep.
pub fn nested_json_ld(depth: usize) -> String {
    format!(
        "{{\"@id\": \"http://e/x\", \"http://e/p\": {}1{}}}",
        "[".repeat(depth),
        "]".repeat(depth)
    )
}
