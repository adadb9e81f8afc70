package ycsb

import (
	"strings"
	"testing"
)

// The parsers of what users hand candor (YCSB property files, -p overrides), fuzzed: whatever the
// input, they return properties or an error, never panic, and what they return is consistent. Seeds
// are in testdata/fuzz (go test -fuzz=FuzzParseProperties ./workload/ycsb/ explores from them).

func FuzzParseProperties(f *testing.F) {
	for _, s := range []string{"", "recordcount=1000\n", "a: b\n# c\n! d\nkey value\\\n  continued\n", "\\u0041=\\u00e9\n", "=\n:\n\\\n"} {
		f.Add(s)
	}
	for _, n := range BuiltinNames {
		p, err := Builtin(n)
		if err != nil {
			f.Fatal(err)
		}
		var b strings.Builder
		for _, k := range p.Names() {
			b.WriteString(k + "=" + p[k] + "\n")
		}
		f.Add(b.String())
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePropertiesString(s)
		if err != nil {
			return
		}
		// Every property the parser gives is one the typed configuration reads, reports or refuses:
		// no input makes FromProperties panic, and a secret's value never shows in its report.
		_, rep, _ := FromProperties(p)
		for _, u := range rep.Unknown {
			if secretName.MatchString(u.Name) && u.Value != "xxxxx" {
				t.Fatalf("the secret %s shows its value %q", u.Name, u.Value)
			}
		}
	})
}

func FuzzParseOverride(f *testing.F) {
	for _, s := range []string{"recordcount=10", "a=b=c", "=x", "noequals", " key = value ", "db.passwd=s3cret"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		name, value, err := ParseOverride(s)
		if err != nil {
			return
		}
		if name == "" {
			t.Fatalf("ParseOverride(%q) gave an empty name without an error", s)
		}
		if p, err := ParseOverrides([]string{s}); err != nil || p[name] != value {
			t.Fatalf("ParseOverrides([%q]) = %v, %v; ParseOverride gave %q=%q", s, p, err, name, value)
		}
	})
}
