package measure

import "github.com/candor-bench/candor/driver"

// MaxFailureMessages is how many distinct failure messages are kept per operation (with their
// counts): the first ones seen in the measurement window. Failures with other messages are still
// counted by class (Counts.Failures); memory does not grow with the run.
const MaxFailureMessages = 5

// FailureMessage is one distinct message of an operation's failures, its class and how many
// failures had it.
type FailureMessage struct {
	Class driver.FailureClass
	Text  string
	Count int64
}

// addMessage counts n failures of class c with text msg into ms, adding the message when it is new
// and ms holds fewer than MaxFailureMessages; it reports whether the message was counted.
func addMessage(ms *[]FailureMessage, c driver.FailureClass, msg string, n int64) bool {
	for i := range *ms {
		if m := &(*ms)[i]; m.Class == c && m.Text == msg {
			m.Count += n
			return true
		}
	}
	if len(*ms) >= MaxFailureMessages {
		return false
	}
	*ms = append(*ms, FailureMessage{Class: c, Text: msg, Count: n})
	return true
}

// Failed is the failures of the operation counts c belong to, in every class.
func (c *Counts) Failed() int64 {
	var n int64
	for _, f := range c.Failures {
		n += f
	}
	return n
}
