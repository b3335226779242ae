//! A BSBM dataset (Berlin SPARQL Benchmark, V3 dataset specification): an e-commerce graph of
//! products in a product-type hierarchy with product features, their producers, vendors' offers,
//! and reviews written by reviewers of rating sites, in the `bsbm:` / `bsbm-inst:` namespaces,
//! scaled by the product count (about 2,785 products per million triples).
//!
//! Per product: 20 offers and 10 reviews on average (each offer and review picks its product
//! uniformly); 1–99 products per producer (mean 50), 1,000–3,000 offers per vendor, 1–39
//! reviews per reviewer (mean 20), 1–199 reviewers per rating site. The hierarchy has
//! `1 + round(log10(products) / 2)` levels under the root, `2 × round(log10(products))`
//! branches at the root and 4 below; every type owns 5–15 features, and a product takes each
//! feature of its leaf type with probability ¾ and of its other ancestors with 0.35. Numeric
//! properties 1–3 and textual properties 1–3 are always present, 4–5 on half of the products,
//! 6 on a quarter. Offers are valid from a day in 2008-02-01..2008-06-20 for 30–120 days and
//! deliver in 1–21 days; reviews carry ratings 1–4 (each present with probability 0.8) and a
//! text in English half of the time, else in one of nine other languages.
//!
//! Where it may differ from the Java generator: `docs/BENCHMARK.md` (BSBM section) lists it. The
//! [`Model`] computes any entity from the seed and its number alone, so the Explore driver draws
//! query parameters (`explore`) from the same model without reading the data back.

mod explore;
mod text;

pub use explore::{draw, Form, Template, CURRENT_DATE, MIX, MIX_WITH_Q6, TEMPLATES};
pub use text::{word, VOCABULARY};

use crate::{iri, literal, Rng};
use std::io::Write;

/// The BSBM vocabulary namespace (`bsbm:`).
pub const BSBM: &str = "http://www4.wiwiss.fu-berlin.de/bizer/bsbm/v01/vocabulary/";
/// The BSBM instances namespace (`bsbm-inst:`).
pub const INST: &str = "http://www4.wiwiss.fu-berlin.de/bizer/bsbm/v01/instances/";
/// The namespace of Q12's constructed properties (`bsbm-export:`).
pub const EXPORT: &str = "http://www4.wiwiss.fu-berlin.de/bizer/bsbm/v01/vocabulary/export/";
/// The RDF Review vocabulary (`rev:`).
pub const REV: &str = "http://purl.org/stuff/rev#";
/// Dublin Core elements (`dc:`).
pub const DC: &str = "http://purl.org/dc/elements/1.1/";
/// FOAF (`foaf:`).
pub const FOAF: &str = "http://xmlns.com/foaf/0.1/";
/// The ISO 3166 country IRIs vendors and reviewers point to.
pub const COUNTRIES: &str = "http://downlode.org/rdf/iso-3166/countries#";
const RDF_TYPE: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";
const RDFS: &str = "http://www.w3.org/2000/01/rdf-schema#";
const XSD: &str = "http://www.w3.org/2001/XMLSchema#";

const COUNTRY_CODES: [&str; 10] = ["US", "DE", "GB", "FR", "JP", "CN", "RU", "KR", "AT", "ES"];
const LANGUAGES: [&str; 9] = ["de", "fr", "es", "ja", "zh", "ru", "ko", "it", "pt"];

/// Parameters of a BSBM dataset.
#[derive(Debug, Clone)]
pub struct BsbmParams {
    /// Number of products (the scale factor): 2,785 give about 1 M triples.
    pub products: u64,
    /// Random seed.
    pub seed: u64,
}

impl Default for BsbmParams {
    fn default() -> Self {
        Self {
            products: 2785,
            seed: 0,
        }
    }
}

/// A product type: its parent (none for the root) and the features it owns.
#[derive(Debug, Clone)]
pub struct ProductType {
    /// Parent type index (`None` for the root, index 0).
    pub parent: Option<usize>,
    /// Levels below the root (the root is 0).
    pub depth: u32,
    /// The feature numbers (0-based) this type owns.
    pub features: std::ops::Range<u64>,
}

/// The shape of a dataset: everything that is not computed per entity.
#[derive(Debug, Clone)]
pub struct Model {
    /// The parameters.
    pub params: BsbmParams,
    /// Product types, the root first, parents before children.
    pub types: Vec<ProductType>,
    /// Indexes of the leaf types.
    pub leaves: Vec<usize>,
    /// Number of product features.
    pub features: u64,
    /// First product of each producer.
    producers: Vec<u64>,
    /// First offer of each vendor.
    vendors: Vec<u64>,
    /// First review of each reviewer.
    reviewers: Vec<u64>,
    /// First reviewer of each rating site.
    sites: Vec<u64>,
}

/// One product as generated.
#[derive(Debug, Clone)]
pub struct Product {
    /// Its types from the level under the root down to its leaf type.
    pub types: Vec<usize>,
    /// Its features (0-based numbers), ascending.
    pub features: Vec<u64>,
    /// `bsbm:productPropertyNumeric1..6` (`None`: absent).
    pub numeric: [Option<u64>; 6],
    /// `bsbm:productPropertyTextual1..6`.
    pub textual: [Option<String>; 6],
    /// `rdfs:label`.
    pub label: String,
    /// `rdfs:comment`.
    pub comment: String,
    /// The producer (0-based).
    pub producer: u64,
    /// `dc:date` (days since 1970).
    pub date: i64,
}

/// One offer as generated.
#[derive(Debug, Clone)]
pub struct Offer {
    /// The product offered (0-based).
    pub product: u64,
    /// The vendor (0-based).
    pub vendor: u64,
    /// Price in cents.
    pub cents: u64,
    /// `bsbm:validFrom` (days since 1970).
    pub valid_from: i64,
    /// `bsbm:validTo` (days since 1970).
    pub valid_to: i64,
    /// `bsbm:deliveryDays`.
    pub delivery_days: u64,
}

/// One review as generated.
#[derive(Debug, Clone)]
pub struct Review {
    /// The product reviewed (0-based).
    pub product: u64,
    /// The reviewer (0-based).
    pub reviewer: u64,
    /// `bsbm:reviewDate`: days since 1970 and seconds into the day.
    pub date: (i64, u64),
    /// `bsbm:rating1..4`.
    pub ratings: [Option<u64>; 4],
    /// `dc:title`.
    pub title: String,
    /// `rev:text` and its language tag.
    pub text: (String, &'static str),
}

/// Splits `total` items into consecutive groups of `min..=max` items; the first item of each.
fn blocks(rng: &mut Rng, total: u64, min: u64, max: u64) -> Vec<u64> {
    let mut starts = vec![0];
    let mut at = min + rng.below(max - min + 1);
    while at < total {
        starts.push(at);
        at += min + rng.below(max - min + 1);
    }
    starts
}

/// The group of item `i` in `starts`.
fn group(starts: &[u64], i: u64) -> u64 {
    (starts.partition_point(|&s| s <= i) - 1) as u64
}

/// Kinds of entity, mixed into the per-entity seeds.
const PRODUCT: u64 = 1;
const OFFER: u64 = 2;
const REVIEW: u64 = 3;
const OTHER: u64 = 4;

impl Model {
    /// The model of the dataset with these parameters.
    pub fn new(params: &BsbmParams) -> Self {
        let n = params.products.max(1);
        let mut rng = Rng::new(params.seed);
        let lg = (n as f64).log10().round() as u32;
        let levels = 1 + (lg as f64 / 2.0).round() as u32;
        let mut types = vec![ProductType {
            parent: None,
            depth: 0,
            features: 0..0,
        }];
        let mut features = 0;
        let mut level = vec![0usize];
        for depth in 1..=levels {
            let branching = if depth == 1 { (2 * lg).max(2) } else { 4 };
            let mut next = Vec::new();
            for &parent in &level {
                for _ in 0..branching {
                    let k = 5 + rng.below(11);
                    types.push(ProductType {
                        parent: Some(parent),
                        depth,
                        features: features..features + k,
                    });
                    features += k;
                    next.push(types.len() - 1);
                }
            }
            level = next;
        }
        let offers = 20 * n;
        let reviews = 10 * n;
        let reviewers = blocks(&mut rng, reviews, 1, 39);
        let sites = blocks(&mut rng, reviewers.len() as u64, 1, 199);
        Self {
            params: BsbmParams {
                products: n,
                seed: params.seed,
            },
            types,
            leaves: level,
            features,
            producers: blocks(&mut rng, n, 1, 99),
            vendors: blocks(&mut rng, offers, 1000, 3000),
            reviewers,
            sites,
        }
    }

    /// Number of products.
    pub fn products(&self) -> u64 {
        self.params.products
    }
    /// Number of offers.
    pub fn offers(&self) -> u64 {
        20 * self.params.products
    }
    /// Number of reviews.
    pub fn reviews(&self) -> u64 {
        10 * self.params.products
    }
    /// Number of producers.
    pub fn producers(&self) -> u64 {
        self.producers.len() as u64
    }
    /// Number of vendors.
    pub fn vendors(&self) -> u64 {
        self.vendors.len() as u64
    }
    /// Number of reviewers.
    pub fn reviewers(&self) -> u64 {
        self.reviewers.len() as u64
    }
    /// Number of rating sites.
    pub fn rating_sites(&self) -> u64 {
        self.sites.len() as u64
    }

    fn rng(&self, kind: u64, i: u64) -> Rng {
        Rng::new(
            self.params.seed
                ^ kind.wrapping_mul(0x9e37_79b9_7f4a_7c15)
                ^ i.wrapping_mul(0xc2b2_ae3d_27d4_eb4f),
        )
    }

    /// Product `i` (0-based).
    pub fn product(&self, i: u64) -> Product {
        let mut rng = self.rng(PRODUCT, i);
        let leaf = self.leaves[rng.below(self.leaves.len() as u64) as usize];
        let mut path = vec![leaf];
        while let Some(p) = self.types[*path.last().unwrap_or(&0)].parent {
            if p == 0 {
                break;
            }
            path.push(p);
        }
        path.reverse();
        let mut features = Vec::new();
        for &t in &path {
            let p = if t == leaf { 0.75 } else { 0.35 };
            features.extend(self.types[t].features.clone().filter(|_| rng.chance(p)));
        }
        let present = |rng: &mut Rng, k: usize| match k {
            0..=2 => true,
            3 | 4 => rng.chance(0.5),
            _ => rng.chance(0.25),
        };
        let mut numeric = [None; 6];
        for (k, v) in numeric.iter_mut().enumerate() {
            if present(&mut rng, k) {
                *v = Some(1 + rng.below(2000));
            }
        }
        let mut textual: [Option<String>; 6] = Default::default();
        for (k, v) in textual.iter_mut().enumerate() {
            if present(&mut rng, k) {
                *v = Some(text::words(&mut rng, 3, 15));
            }
        }
        Product {
            types: path,
            features,
            numeric,
            textual,
            label: text::words(&mut rng, 1, 3),
            comment: text::words(&mut rng, 20, 60),
            producer: group(&self.producers, i),
            date: text::days(2000, 1, 1) + rng.below(3000) as i64,
        }
    }

    /// Offer `i` (0-based).
    pub fn offer(&self, i: u64) -> Offer {
        let mut rng = self.rng(OFFER, i);
        let valid_from = text::days(2008, 2, 1) + rng.below(141) as i64;
        Offer {
            product: rng.below(self.params.products),
            vendor: group(&self.vendors, i),
            cents: 500 + rng.below(999_500),
            valid_from,
            valid_to: valid_from + 30 + rng.below(91) as i64,
            delivery_days: 1 + rng.below(21),
        }
    }

    /// Review `i` (0-based).
    pub fn review(&self, i: u64) -> Review {
        let mut rng = self.rng(REVIEW, i);
        let product = rng.below(self.params.products);
        let date = (
            text::days(2007, 6, 20) + rng.below(366) as i64,
            rng.below(86_400),
        );
        let mut ratings = [None; 4];
        for r in &mut ratings {
            if rng.chance(0.8) {
                *r = Some(1 + rng.below(10));
            }
        }
        let title = text::words(&mut rng, 4, 10);
        let lang = if rng.chance(0.5) {
            "en"
        } else {
            LANGUAGES[rng.below(LANGUAGES.len() as u64) as usize]
        };
        Review {
            product,
            reviewer: group(&self.reviewers, i),
            date,
            ratings,
            title,
            text: (text::words(&mut rng, 20, 80), lang),
        }
    }

    /// The rating site of reviewer `r`.
    pub fn site_of(&self, reviewer: u64) -> u64 {
        group(&self.sites, reviewer)
    }

    /// The IRI of product type `t` (0-based; the root is `ProductType1`).
    pub fn type_iri(&self, t: usize) -> String {
        format!("{INST}ProductType{}", t + 1)
    }
    /// The IRI of product feature `f`.
    pub fn feature_iri(&self, f: u64) -> String {
        format!("{INST}ProductFeature{}", f + 1)
    }
    /// The IRI of producer `p`.
    pub fn producer_iri(&self, p: u64) -> String {
        format!("{INST}dataFromProducer{0}/Producer{0}", p + 1)
    }
    /// The IRI of product `i`.
    pub fn product_iri(&self, i: u64) -> String {
        let p = group(&self.producers, i) + 1;
        format!("{INST}dataFromProducer{p}/Product{}", i + 1)
    }
    /// The IRI of vendor `v`.
    pub fn vendor_iri(&self, v: u64) -> String {
        format!("{INST}dataFromVendor{0}/Vendor{0}", v + 1)
    }
    /// The IRI of offer `i`.
    pub fn offer_iri(&self, i: u64) -> String {
        let v = group(&self.vendors, i) + 1;
        format!("{INST}dataFromVendor{v}/Offer{}", i + 1)
    }
    /// The IRI of rating site `s`.
    pub fn site_iri(&self, s: u64) -> String {
        format!("{INST}dataFromRatingSite{0}/RatingSite{0}", s + 1)
    }
    /// The IRI of reviewer `r`.
    pub fn reviewer_iri(&self, r: u64) -> String {
        let s = self.site_of(r) + 1;
        format!("{INST}dataFromRatingSite{s}/Reviewer{}", r + 1)
    }
    /// The IRI of review `i`.
    pub fn review_iri(&self, i: u64) -> String {
        let s = self.site_of(group(&self.reviewers, i)) + 1;
        format!("{INST}dataFromRatingSite{s}/Review{}", i + 1)
    }

    /// The country code of vendor `v`: the first is in the US and the second in Germany, so
    /// that Q10 (US vendors) and Q7 (German vendors) find offers at the smallest scales.
    pub fn vendor_country(&self, v: u64) -> &'static str {
        match v {
            0 => "US",
            1 => "DE",
            _ => COUNTRY_CODES[self.rng(OTHER, v).below(COUNTRY_CODES.len() as u64) as usize],
        }
    }
}

/// Writes N-Triples lines, counting them.
struct W<'a, O: Write> {
    out: &'a mut O,
    buf: String,
    n: u64,
}

/// An object of a triple.
enum O<'a> {
    Iri(&'a str),
    Str(&'a str),
    Lang(&'a str, &'a str),
    Typed(&'a str, &'a str),
}

impl<O2: Write> W<'_, O2> {
    fn t(&mut self, s: &str, p: &str, o: O<'_>) {
        iri(&mut self.buf, s);
        self.buf.push(' ');
        iri(&mut self.buf, p);
        self.buf.push(' ');
        match o {
            O::Iri(o) => iri(&mut self.buf, o),
            O::Str(v) => literal(&mut self.buf, v),
            O::Lang(v, l) => {
                literal(&mut self.buf, v);
                self.buf.push('@');
                self.buf.push_str(l);
            }
            O::Typed(v, dt) => {
                literal(&mut self.buf, v);
                self.buf.push_str("^^");
                iri(&mut self.buf, dt);
            }
        }
        self.buf.push_str(" .\n");
        self.n += 1;
    }

    /// Writes the buffered lines out once they are large.
    fn flush(&mut self, force: bool) -> std::io::Result<()> {
        if force || self.buf.len() > 1 << 16 {
            self.out.write_all(self.buf.as_bytes())?;
            self.buf.clear();
        }
        Ok(())
    }
}

fn bsbm(local: &str) -> String {
    format!("{BSBM}{local}")
}

/// Writes the dataset as N-Triples; returns the number of triples.
pub fn write_ntriples(p: &BsbmParams, out: &mut impl Write) -> std::io::Result<u64> {
    let m = Model::new(p);
    let mut w = W {
        out,
        buf: String::with_capacity(1 << 17),
        n: 0,
    };
    let (label, comment) = (format!("{RDFS}label"), format!("{RDFS}comment"));
    let (publisher, dc_date) = (format!("{DC}publisher"), format!("{DC}date"));
    let (xsd_date, xsd_dt, xsd_int) = (
        format!("{XSD}date"),
        format!("{XSD}dateTime"),
        format!("{XSD}integer"),
    );
    let homepage = format!("{FOAF}homepage");
    let country = bsbm("country");
    let standard = |w: &mut W<'_, _>, s: &str, publisher_iri: &str, day: i64| {
        w.t(s, &publisher, O::Iri(publisher_iri));
        w.t(s, &dc_date, O::Typed(&text::date(day), &xsd_date));
    };
    // A resource's class, label and comment (the two texts drawn in this order).
    let described = |w: &mut W<'_, _>, rng: &mut Rng, s: &str, class: &str| {
        w.t(s, RDF_TYPE, O::Iri(&bsbm(class)));
        w.t(s, &label, O::Str(&text::words(rng, 1, 3)));
        w.t(s, &comment, O::Str(&text::words(rng, 10, 30)));
    };
    // A producer or vendor, published by itself: its country comes after its texts and before
    // its date, the order of the draws that keeps the data byte-identical.
    let company = |w: &mut W<'_, _>,
                   rng: &mut Rng,
                   s: &str,
                   class: &str,
                   home: &str,
                   country_code: &dyn Fn(&mut Rng) -> &'static str| {
        described(w, rng, s, class);
        w.t(s, &homepage, O::Iri(home));
        let c = country_code(rng);
        w.t(s, &country, O::Iri(&format!("{COUNTRIES}{c}")));
        standard(w, s, s, text::days(2000, 1, 1) + rng.below(3000) as i64);
    };
    let std_pub = format!("{INST}StandardizationInstitution1");
    let mut rng = m.rng(OTHER, u64::MAX);

    // The type hierarchy and the features.
    for (t, ty) in m.types.iter().enumerate() {
        let s = m.type_iri(t);
        described(&mut w, &mut rng, &s, "ProductType");
        if let Some(parent) = ty.parent {
            w.t(
                &s,
                &format!("{RDFS}subClassOf"),
                O::Iri(&m.type_iri(parent)),
            );
        }
        standard(&mut w, &s, &std_pub, text::days(2000, 1, 1));
        w.flush(false)?;
    }
    for f in 0..m.features {
        let s = m.feature_iri(f);
        described(&mut w, &mut rng, &s, "ProductFeature");
        standard(&mut w, &s, &std_pub, text::days(2000, 1, 1));
        w.flush(false)?;
    }

    // Producers and their products.
    for pr in 0..m.producers() {
        let home = format!("http://www.Producer{}.com/", pr + 1);
        company(
            &mut w,
            &mut rng,
            &m.producer_iri(pr),
            "Producer",
            &home,
            &|rng| COUNTRY_CODES[rng.below(COUNTRY_CODES.len() as u64) as usize],
        );
    }
    for i in 0..m.products() {
        let pr = m.product(i);
        let s = m.product_iri(i);
        w.t(&s, RDF_TYPE, O::Iri(&bsbm("Product")));
        for &t in &pr.types {
            w.t(&s, RDF_TYPE, O::Iri(&m.type_iri(t)));
        }
        w.t(&s, &label, O::Str(&pr.label));
        w.t(&s, &comment, O::Str(&pr.comment));
        let producer = m.producer_iri(pr.producer);
        w.t(&s, &bsbm("producer"), O::Iri(&producer));
        for &f in &pr.features {
            w.t(&s, &bsbm("productFeature"), O::Iri(&m.feature_iri(f)));
        }
        for (k, v) in pr.numeric.iter().enumerate() {
            if let Some(v) = v {
                let p = bsbm(&format!("productPropertyNumeric{}", k + 1));
                w.t(&s, &p, O::Typed(&v.to_string(), &xsd_int));
            }
        }
        for (k, v) in pr.textual.iter().enumerate() {
            if let Some(v) = v {
                w.t(
                    &s,
                    &bsbm(&format!("productPropertyTextual{}", k + 1)),
                    O::Str(v),
                );
            }
        }
        standard(&mut w, &s, &producer, pr.date);
        w.flush(false)?;
    }

    // Vendors and their offers.
    for v in 0..m.vendors() {
        let home = format!("http://www.vendor{}.com/", v + 1);
        company(&mut w, &mut rng, &m.vendor_iri(v), "Vendor", &home, &|_| {
            m.vendor_country(v)
        });
    }
    for i in 0..m.offers() {
        let o = m.offer(i);
        let s = m.offer_iri(i);
        let vendor = m.vendor_iri(o.vendor);
        w.t(&s, RDF_TYPE, O::Iri(&bsbm("Offer")));
        w.t(&s, &bsbm("product"), O::Iri(&m.product_iri(o.product)));
        w.t(&s, &bsbm("vendor"), O::Iri(&vendor));
        let price = format!("{}.{:02}", o.cents / 100, o.cents % 100);
        w.t(&s, &bsbm("price"), O::Typed(&price, &bsbm("USD")));
        let from = format!("{}T00:00:00", text::date(o.valid_from));
        w.t(&s, &bsbm("validFrom"), O::Typed(&from, &xsd_dt));
        let to = format!("{}T00:00:00", text::date(o.valid_to));
        w.t(&s, &bsbm("validTo"), O::Typed(&to, &xsd_dt));
        let days = o.delivery_days.to_string();
        w.t(&s, &bsbm("deliveryDays"), O::Typed(&days, &xsd_int));
        let page = format!(
            "http://www.vendor{}.com/offers/Offer{}/",
            o.vendor + 1,
            i + 1
        );
        w.t(&s, &bsbm("offerWebpage"), O::Iri(&page));
        standard(&mut w, &s, &vendor, o.valid_from);
        w.flush(false)?;
    }

    // Rating sites, reviewers and reviews.
    for st in 0..m.rating_sites() {
        let s = m.site_iri(st);
        w.t(&s, RDF_TYPE, O::Iri(&bsbm("RatingSite")));
        w.t(&s, &label, O::Str(&text::words(&mut rng, 1, 3)));
        w.t(
            &s,
            &homepage,
            O::Iri(&format!("http://www.ratingsite{}.com/", st + 1)),
        );
        standard(&mut w, &s, &s, text::days(2000, 1, 1));
    }
    for r in 0..m.reviewers() {
        let s = m.reviewer_iri(r);
        let site = m.site_iri(m.site_of(r));
        w.t(&s, RDF_TYPE, O::Iri(&format!("{FOAF}Person")));
        w.t(&s, &format!("{FOAF}name"), O::Str(&text::name(&mut rng)));
        let sha = format!(
            "{:016x}{:016x}{:08x}",
            rng.next_u64(),
            rng.next_u64(),
            rng.below(1 << 32)
        );
        w.t(&s, &format!("{FOAF}mbox_sha1sum"), O::Str(&sha));
        let c = COUNTRY_CODES[rng.below(COUNTRY_CODES.len() as u64) as usize];
        w.t(&s, &country, O::Iri(&format!("{COUNTRIES}{c}")));
        standard(
            &mut w,
            &s,
            &site,
            text::days(2007, 1, 1) + rng.below(500) as i64,
        );
        w.flush(false)?;
    }
    for i in 0..m.reviews() {
        let rv = m.review(i);
        let s = m.review_iri(i);
        let site = m.site_iri(m.site_of(rv.reviewer));
        w.t(&s, RDF_TYPE, O::Iri(&bsbm("Review")));
        w.t(&s, &bsbm("reviewFor"), O::Iri(&m.product_iri(rv.product)));
        w.t(
            &s,
            &format!("{REV}reviewer"),
            O::Iri(&m.reviewer_iri(rv.reviewer)),
        );
        let (day, secs) = rv.date;
        let when = format!(
            "{}T{:02}:{:02}:{:02}",
            text::date(day),
            secs / 3600,
            secs / 60 % 60,
            secs % 60
        );
        w.t(&s, &bsbm("reviewDate"), O::Typed(&when, &xsd_dt));
        w.t(&s, &format!("{DC}title"), O::Str(&rv.title));
        w.t(&s, &format!("{REV}text"), O::Lang(&rv.text.0, rv.text.1));
        for (k, r) in rv.ratings.iter().enumerate() {
            if let Some(r) = r {
                let p = bsbm(&format!("rating{}", k + 1));
                w.t(&s, &p, O::Typed(&r.to_string(), &xsd_int));
            }
        }
        standard(&mut w, &s, &site, day);
        w.flush(false)?;
    }
    w.flush(true)?;
    Ok(w.n)
}

#[cfg(test)]
mod tests;
