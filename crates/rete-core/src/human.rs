//! Counts and sizes in words, for messages and reports: "1 class", "2 classes", "1.5 KiB".

/// `n` followed by `one` or `many` as `n` asks ("1 class", "2 classes").
pub fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// A byte count in binary units: `512 bytes`, `1.5 KiB`, `2.0 MiB`.
pub fn bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["bytes", "KiB", "MiB", "GiB", "TiB"];
    let mut v = n as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{n} bytes")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plural_picks_the_form() {
        assert_eq!(plural(1, "class", "classes"), "1 class");
        assert_eq!(plural(0, "class", "classes"), "0 classes");
        assert_eq!(plural(20, "finding", "findings"), "20 findings");
    }

    #[test]
    fn bytes_in_binary_units() {
        assert_eq!(bytes(512), "512 bytes");
        assert_eq!(bytes(1536), "1.5 KiB");
        assert_eq!(bytes(2 << 20), "2.0 MiB");
        assert_eq!(bytes(3 << 30), "3.0 GiB");
    }
}
