package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/candor-bench/candor/run"
)

// The README is a user's manual: short enough to read, and every candor command in it one that
// candor takes. These tests keep it so.

// readmeMaxLines is the README's budget: a manual, with the evidence in docs/.
const readmeMaxLines = 700

// readmeCommand is a command line of the README's code blocks, with where it is.
type readmeCommand struct {
	line int
	text string
	args []string // after `candor` (or `go run ./cmd/candor`)
	// refused: the output shown right after the prompted command is candor's refusal ("candor: ..."),
	// an example of bad input: candor must refuse it.
	refused bool
}

// readmeCommands finds the candor commands of a Markdown text's fenced code blocks: in a block of
// shell (sh, bash, shell, console) every line that starts with `candor` or `go run ./cmd/candor`,
// and in any block a line that starts with `$ ` followed by one (a prompt: output blocks hold both
// commands and what they printed, and only the prompted lines are commands). A line ending in `\`
// continues on the next. The command ends at a comment, a pipe, `&&`, `;`, `&` or a redirection.
func readmeCommands(text string) ([]readmeCommand, error) {
	var cmds []readmeCommand
	inBlock, shell := false, false
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		trimmed := strings.TrimSpace(l)
		if strings.HasPrefix(trimmed, "```") {
			if inBlock {
				inBlock = false
				continue
			}
			inBlock = true
			switch strings.TrimSpace(strings.TrimPrefix(trimmed, "```")) {
			case "sh", "bash", "shell", "console":
				shell = true
			default:
				shell = false
			}
			continue
		}
		if !inBlock {
			continue
		}
		start := i + 1
		prompted := strings.HasPrefix(trimmed, "$ ")
		cmd := strings.TrimSpace(strings.TrimPrefix(trimmed, "$ "))
		if !prompted && !shell {
			continue
		}
		for strings.HasSuffix(cmd, `\`) && i+1 < len(lines) {
			i++
			cmd = strings.TrimSuffix(cmd, `\`) + " " + strings.TrimSpace(lines[i])
		}
		words, err := shellWords(cmd)
		if err != nil {
			return nil, fmt.Errorf("README.md:%d: %v", start, err)
		}
		var args []string
		switch {
		case len(words) >= 1 && words[0] == "candor":
			args = words[1:]
		case len(words) >= 3 && words[0] == "go" && words[1] == "run" && words[2] == "./cmd/candor":
			args = words[3:]
		default:
			continue
		}
		refused := prompted && i+1 < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i+1]), "candor: ")
		cmds = append(cmds, readmeCommand{line: start, text: cmd, args: args, refused: refused})
	}
	if inBlock {
		return nil, fmt.Errorf("README.md: a code block is not closed")
	}
	return cmds, nil
}

// shellWords splits a command line as a POSIX shell would for these purposes: words separated by
// blanks, '...' and "..." quoting, a backslash escaping the next character; it stops at a comment
// (a word starting with #) and at |, &, ;, < and >.
func shellWords(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'' || c == '"':
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				return nil, fmt.Errorf("unclosed quote in %q", s)
			}
			w.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '\\' && i+1 < len(s):
			i++
			w.WriteByte(s[i])
			inWord = true
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case !inWord && c == '#', strings.IndexByte("|&;<>", c) >= 0:
			if inWord {
				words = append(words, w.String())
			}
			return words, nil
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}

// parseCommand finds args' command in candor's command tree, built as main builds it, and parses
// its flags and arguments without running it: an error names what candor would refuse.
func parseCommand(args []string) error {
	root := newRoot(run.Out{Stdout: io.Discard, Stderr: io.Discard})
	root.SetOut(io.Discard)
	root.SetErr(io.Discard)
	c, rest, err := root.Find(args)
	if err != nil {
		return err
	}
	if err := c.ParseFlags(rest); err != nil {
		return fmt.Errorf("%s: %v", c.CommandPath(), err)
	}
	if err := c.ValidateArgs(c.Flags().Args()); err != nil {
		return fmt.Errorf("%s: %v", c.CommandPath(), err)
	}
	return nil
}

func readReadme(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestReadmeLength: the README stays a manual.
func TestReadmeLength(t *testing.T) {
	text := readReadme(t)
	n := 0
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		n++
	}
	if n > readmeMaxLines {
		t.Errorf("README.md has %d lines, more than %d: move the details into docs/ and link them", n, readmeMaxLines)
	}
}

// TestReadmeCommandsParse: every candor command in the README's code blocks names commands that
// exist and flags they take, with the arguments they accept.
func TestReadmeCommandsParse(t *testing.T) {
	cmds, err := readmeCommands(readReadme(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(cmds) < 20 {
		t.Fatalf("found only %d candor commands in README.md's code blocks: the extraction is broken", len(cmds))
	}
	seen := map[string]bool{}
	for _, c := range cmds {
		err := parseCommand(c.args)
		switch {
		case c.refused && err == nil:
			t.Errorf("README.md:%d: %s\n  is shown refused, but candor takes it", c.line, c.text)
		case !c.refused && err != nil:
			t.Errorf("README.md:%d: %s\n  candor refuses it: %v", c.line, c.text, err)
		}
		if len(c.args) > 0 {
			seen[c.args[0]] = true
		}
	}
	// The two promised commands: the one-shot on SQLite and the workloads' recipes.
	for _, w := range []string{"tpcc", "kv", "ycsb", "sysbench", "tpch", "script", "capture", "report", "compare"} {
		if !seen[w] {
			t.Errorf("README.md has no `candor %s` command in a code block", w)
		}
	}
}

// TestReadmeShowsTheTestCommand: scripts/test is the test command, and the README says so.
func TestReadmeShowsTheTestCommand(t *testing.T) {
	text := readReadme(t)
	if !strings.Contains(text, "\nscripts/test") {
		t.Error("README.md does not show `scripts/test`, the test command CI runs, at the start of a line in a code block")
	}
	if !strings.Contains(text, "go run ./cmd/candor tpcc") {
		t.Error("README.md does not show the one-shot on SQLite, `go run ./cmd/candor tpcc`")
	}
}

// TestReadmeCheckerRefuses: the checks above can fail. A bogus flag, a flag of another command, a
// mistyped subcommand and a stray argument are refused; real commands are taken; and the
// extraction finds commands in shell blocks and prompted lines, not in output.
func TestReadmeCheckerRefuses(t *testing.T) {
	for _, bad := range [][]string{
		{"tpcc", "run", "--no-such-flag"},
		{"tpcc", "run", "--db", "sqlite:x.db", "--warehouse", "8"}, // --warehouses, misspelt
		{"kv", "load", "--test", "oltp_read_write"},                // sysbench's flag, not kv's
		{"tpcc", "runn"},
		{"sysbench", "lod"}, // load, misspelt
		{"tpcc", "check", "stray"},
		{"compare", "only-one-dir"},
	} {
		if err := parseCommand(bad); err == nil {
			t.Errorf("candor %s: parsed, but candor refuses it", strings.Join(bad, " "))
		}
	}
	for _, good := range [][]string{
		{"tpcc"},
		{"tpcc", "run", "--db", "postgres://u@h/db", "--mode", "rate", "--rate", "500", "--duration", "5m"},
		{"ycsb", "load", "--workload", "a", "-p", "recordcount=1000"},
		{"script", "run", "-f", "mine.sql@3", "-c", "4"},
		{"compare", "a", "b"},
	} {
		if err := parseCommand(good); err != nil {
			t.Errorf("candor %s: %v", strings.Join(good, " "), err)
		}
	}
	md := "text\n```sh\ncandor tpcc run --db URL \\\n    --duration 5m   # a comment\nscripts/test\n```\n" +
		"```text\n$ candor kv run --terminals 8 | tail -3\ncandor kv: tail latency as the load grows\n```\n" +
		"```\ncandor not-a-command-line-in-output\n```\n"
	cmds, err := readmeCommands(md)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cmds {
		got = append(got, strings.Join(c.args, " "))
	}
	want := []string{"tpcc run --db URL --duration 5m", "kv run --terminals 8"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("readmeCommands found %q, want %q", got, want)
	}
}
