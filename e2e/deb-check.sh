#!/usr/bin/env bash
# Checks the built .deb: binary, desktop entry (double-click opens files: Exec … %F, the .rete
# MIME type and the RDF media types for "Open with"), the shared-mime-info definition (magic bytes
# and glob of .rete; N-Triples and N-Quads, which shared-mime-info lacks), the icons, and the hidden
# entry that makes the app the handler of rete:// view links.
# Usage: e2e/deb-check.sh path/to/app.deb [sample.rete]
set -euo pipefail
deb=${1:?usage: deb-check.sh APP.deb [SAMPLE.rete]}
sample=${2:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
check() { # name, command...
  local name=$1; shift
  if "$@" >/dev/null 2>&1; then pass=$((pass + 1)); echo "ok   $name"; else fail=$((fail + 1)); echo "FAIL $name"; fi
}

dpkg-deb -x "$deb" "$tmp/root"
dpkg-deb -f "$deb" Package Version Architecture Depends > "$tmp/control"
desktop=$(find "$tmp/root/usr/share/applications" -name '*.desktop' ! -name 'rete-desktop-link.desktop' | head -n1)
# rete:// view links: a second, hidden entry (links are URLs: %u, while the main entry takes files: %F).
links="$tmp/root/usr/share/applications/rete-desktop-link.desktop"
mime="$tmp/root/usr/share/mime/packages/rete-desktop.xml"

check "package is named rete-desktop" grep -qx 'Package: rete-desktop' "$tmp/control"
check "depends on WebKitGTK 4.1" grep -q 'libwebkit2gtk-4.1' "$tmp/control"
check "binary /usr/bin/rete-desktop is an executable" test -x "$tmp/root/usr/bin/rete-desktop"
check "desktop entry exists" test -f "$desktop"
check "desktop entry passes files: Exec=rete-desktop %F" grep -qx 'Exec=rete-desktop %F' "$desktop"
check "desktop entry declares application/x-rete first" grep -q '^MimeType=application/x-rete;' "$desktop"
check "desktop entry is valid" desktop-file-validate "$desktop"
check "link entry handles rete:// (x-scheme-handler/rete)" grep -qx 'MimeType=x-scheme-handler/rete;' "$links"
check "link entry passes the link: Exec=rete-desktop %u" grep -qx 'Exec=rete-desktop %u' "$links"
check "link entry is hidden from menus" grep -qx 'NoDisplay=true' "$links"
check "link entry is valid" desktop-file-validate "$links"
# RDF syntaxes the app imports: listed in the desktop entry so "Open with" offers the app.
for t in text/turtle application/n-triples application/n-quads application/trig application/rdf+xml application/ld+json; do
  check "desktop entry declares $t" grep -q "^MimeType=.*;$t;" "$desktop"
done
# The ones shared-mime-info already defines are used as they are, not redefined.
system=/usr/share/mime/packages/freedesktop.org.xml
for t in text/turtle application/trig application/rdf+xml application/ld+json; do
  check "$t comes from shared-mime-info" grep -q "type=\"$t\"" "$system"
  check "$t is not redefined by the package" bash -c "! grep -q 'type=\"$t\"' '$mime'"
done
check "icon installed" test -n "$(find "$tmp/root/usr/share/icons" -name 'rete-desktop.png' | head -n1)"
check "MIME definition installed" test -f "$mime"
check "MIME definition is well-formed" xmllint --noout "$mime"

# Compile the MIME database from the package alone, as update-mime-database does on install.
mkdir -p "$tmp/mime/packages"
cp "$mime" "$tmp/mime/packages/"
update-mime-database "$tmp/mime"
check "glob *.rete maps to application/x-rete" grep -q 'application/x-rete:\*\.rete' "$tmp/mime/globs2"
check "glob *.nt maps to application/n-triples" grep -q 'application/n-triples:\*\.nt$' "$tmp/mime/globs2"
check "glob *.nq maps to application/n-quads" grep -q 'application/n-quads:\*\.nq$' "$tmp/mime/globs2"
check "magic bytes 0x89 r e t e CR LF 0x1A registered" bash -c "grep -q \$'\\x89rete\\r\\n\\x1a' '$tmp/mime/magic' && grep -q 'application/x-rete' '$tmp/mime/magic'"
if [[ -n "$sample" ]]; then
  check "the sample starts with the registered magic bytes" bash -c "head -c 8 '$sample' | cmp -s - <(printf '\\x89rete\\r\\n\\x1a')"
fi
echo "deb: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
