package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// noArgs is the Args of every command that takes no positional argument: a
// word after a command with subcommands is a mistyped command, named with the closest ones; a word
// after any other command is a stray argument. Both are usage errors (exit status 2), in one
// sentence.
func noArgs(c *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	if c.HasAvailableSubCommands() {
		if pe := peerCommand(c, args[0]); pe != nil { // peers.go: prepare is sysbench's ...
			return pe
		}
		hint := fmt.Sprintf("see `%s --help` for its commands", c.CommandPath())
		if c.SuggestionsMinimumDistance <= 0 {
			c.SuggestionsMinimumDistance = 2 // cobra's own default, set only when it suggests itself
		}
		if s := c.SuggestionsFor(args[0]); len(s) > 0 {
			hint = "did you mean " + orWords(s) + "?"
		}
		return usageError{fmt.Errorf("%q is not a command of %s: %s", args[0], c.CommandPath(), hint)}
	}
	return usageError{fmt.Errorf("%s takes no arguments (got %q): options are flags such as --db URL; see `%s --help`",
		c.CommandPath(), strings.Join(args, " "), c.CommandPath())}
}

// orWords joins words as "a, b or c".
func orWords(w []string) string {
	if len(w) < 2 {
		return strings.Join(w, "")
	}
	return strings.Join(w[:len(w)-1], ", ") + " or " + w[len(w)-1]
}
