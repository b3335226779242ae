//! Literal values: ordering for the value range and property pair components (SPARQL `<`
//! semantics: numbers with numbers, dates with dates, strings with strings), and the lexical
//! well-formedness that `sh:datatype` requires.

use oxrdf::{LiteralRef, TermRef};
use oxsdatatypes::{Boolean, Date, DateTime, Decimal, Double, Duration, Float, Integer, Time};
use std::cmp::Ordering;
use std::str::FromStr;

const XSD: &str = "http://www.w3.org/2001/XMLSchema#";

enum Value {
    Decimal(Decimal),
    Double(Double),
    DateTime(DateTime),
    Date(Date),
    Time(Time),
    Duration(Duration),
    Boolean(Boolean),
    String(String),
}

fn integer_type(local: &str) -> bool {
    matches!(
        local,
        "integer"
            | "nonPositiveInteger"
            | "negativeInteger"
            | "long"
            | "int"
            | "short"
            | "byte"
            | "nonNegativeInteger"
            | "unsignedLong"
            | "unsignedInt"
            | "unsignedShort"
            | "unsignedByte"
            | "positiveInteger"
    )
}

fn value(l: LiteralRef<'_>) -> Option<Value> {
    let local = l.datatype().as_str().strip_prefix(XSD)?;
    let v = l.value();
    Some(match local {
        "string" if l.language().is_none() => Value::String(v.to_owned()),
        "decimal" => Value::Decimal(Decimal::from_str(v).ok()?),
        t if integer_type(t) => Value::Decimal(Integer::from_str(v).ok()?.into()),
        "double" => Value::Double(Double::from_str(v).ok()?),
        "float" => Value::Double(Float::from_str(v).ok()?.into()),
        "dateTime" | "dateTimeStamp" => Value::DateTime(DateTime::from_str(v).ok()?),
        "date" => Value::Date(Date::from_str(v).ok()?),
        "time" => Value::Time(Time::from_str(v).ok()?),
        "duration" => Value::Duration(Duration::from_str(v).ok()?),
        "boolean" => Value::Boolean(Boolean::from_str(v).ok()?),
        _ => return None,
    })
}

/// How `a` compares with `b`, `None` when they are not comparable (then a range constraint
/// fails).
pub fn compare(a: TermRef<'_>, b: TermRef<'_>) -> Option<Ordering> {
    let (TermRef::Literal(a), TermRef::Literal(b)) = (a, b) else {
        return None;
    };
    match (value(a)?, value(b)?) {
        (Value::Decimal(x), Value::Decimal(y)) => x.partial_cmp(&y),
        (Value::Decimal(x), Value::Double(y)) => Double::from(x).partial_cmp(&y),
        (Value::Double(x), Value::Decimal(y)) => x.partial_cmp(&Double::from(y)),
        (Value::Double(x), Value::Double(y)) => x.partial_cmp(&y),
        (Value::DateTime(x), Value::DateTime(y)) => x.partial_cmp(&y),
        (Value::Date(x), Value::Date(y)) => x.partial_cmp(&y),
        (Value::Time(x), Value::Time(y)) => x.partial_cmp(&y),
        (Value::Duration(x), Value::Duration(y)) => x.partial_cmp(&y),
        (Value::Boolean(x), Value::Boolean(y)) => bool::from(x).partial_cmp(&bool::from(y)),
        (Value::String(x), Value::String(y)) => Some(x.cmp(&y)),
        _ => None,
    }
}

/// Whether the lexical form of `l` is valid for its datatype (unknown datatypes are).
pub fn well_formed(l: LiteralRef<'_>) -> bool {
    let Some(local) = l.datatype().as_str().strip_prefix(XSD) else {
        return true;
    };
    let v = l.value();
    let in_range = |min: i128, max: i128| {
        v.trim()
            .trim_start_matches('+')
            .parse::<i128>()
            .is_ok_and(|n| n >= min && n <= max)
    };
    match local {
        "string" => true,
        "boolean" => Boolean::from_str(v).is_ok(),
        "decimal" => Decimal::from_str(v).is_ok(),
        "integer" => Integer::from_str(v).is_ok(),
        "long" => in_range(i64::MIN.into(), i64::MAX.into()),
        "int" => in_range(i32::MIN.into(), i32::MAX.into()),
        "short" => in_range(i16::MIN.into(), i16::MAX.into()),
        "byte" => in_range(i8::MIN.into(), i8::MAX.into()),
        "unsignedLong" => in_range(0, u64::MAX.into()),
        "unsignedInt" => in_range(0, u32::MAX.into()),
        "unsignedShort" => in_range(0, u16::MAX.into()),
        "unsignedByte" => in_range(0, u8::MAX.into()),
        "nonNegativeInteger" => in_range(0, i128::MAX),
        "positiveInteger" => in_range(1, i128::MAX),
        "nonPositiveInteger" => in_range(i128::MIN, 0),
        "negativeInteger" => in_range(i128::MIN, -1),
        "double" => Double::from_str(v).is_ok(),
        "float" => Float::from_str(v).is_ok(),
        "dateTime" => DateTime::from_str(v).is_ok(),
        "dateTimeStamp" => DateTime::from_str(v).is_ok_and(|d| d.timezone().is_some()),
        "date" => Date::from_str(v).is_ok(),
        "time" => Time::from_str(v).is_ok(),
        "duration" => Duration::from_str(v).is_ok(),
        _ => true,
    }
}
