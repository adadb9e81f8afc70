package ycsb

import (
	"fmt"
	"math"
)

// Operation is one of CoreWorkload's transaction types.
type Operation uint8

// The operations in the order CoreWorkload.createOperationGenerator adds them to its
// DiscreteGenerator, which is also the order a draw walks them.
const (
	OpRead Operation = iota
	OpUpdate
	OpInsert
	OpScan
	OpReadModifyWrite
	numOperations
)

var operationNames = [numOperations]string{"READ", "UPDATE", "INSERT", "SCAN", "READMODIFYWRITE"}

// String returns the operation's name in YCSB's DiscreteGenerator ("READMODIFYWRITE"; YCSB measures
// that one under "READ-MODIFY-WRITE").
func (o Operation) String() string {
	if o < numOperations {
		return operationNames[o]
	}
	return fmt.Sprintf("Operation(%d)", uint8(o))
}

// Operations returns every operation in YCSB's order.
func Operations() []Operation {
	return []Operation{OpRead, OpUpdate, OpInsert, OpScan, OpReadModifyWrite}
}

// Proportions are the operation mix: CoreWorkload's five *proportion properties, as named weights.
// YCSB divides each by their sum, so they need not add up to 1 (2 and 6 mean 25% and 75%).
type Proportions struct {
	Read            float64 `json:"readproportion"`
	Update          float64 `json:"updateproportion"`
	Insert          float64 `json:"insertproportion"`
	Scan            float64 `json:"scanproportion"`
	ReadModifyWrite float64 `json:"readmodifywriteproportion"`
}

// Of returns the weight of op.
func (p Proportions) Of(op Operation) float64 {
	switch op {
	case OpRead:
		return p.Read
	case OpUpdate:
		return p.Update
	case OpInsert:
		return p.Insert
	case OpScan:
		return p.Scan
	case OpReadModifyWrite:
		return p.ReadModifyWrite
	}
	return 0
}

// Sum returns the sum of the weights.
func (p Proportions) Sum() float64 {
	return p.Read + p.Update + p.Insert + p.Scan + p.ReadModifyWrite
}

// Share returns op's share of the operations, its weight divided by the sum (0 for a negative
// weight, which YCSB leaves out).
func (p Proportions) Share(op Operation) float64 {
	sum := 0.0
	for _, o := range Operations() {
		if w := p.Of(o); w > 0 {
			sum += w
		}
	}
	if w := p.Of(op); w > 0 && sum > 0 {
		return w / sum
	}
	return 0
}

// Validate checks that every weight is finite and non-negative and that they do not all vanish. YCSB
// leaves out any weight that is not positive (so a negative one silently means 0) and fails with an
// AssertionError on its first draw when none is positive; both are errors here.
func (p Proportions) Validate() error {
	for _, op := range Operations() {
		if w := p.Of(op); !(w >= 0) || math.IsInf(w, 0) {
			return fmt.Errorf("ycsb: %s proportion %v must be a finite number >= 0", op, w)
		}
	}
	if !(p.Sum() > 0) {
		return fmt.Errorf("ycsb: every operation proportion is 0: nothing to do")
	}
	return nil
}

// OperationChooser is the DiscreteGenerator CoreWorkload.createOperationGenerator builds: the
// operations with a positive weight, in YCSB's order, each with its share w/sum. A draw takes one
// Float64 v and walks the list: the first operation with v < share is chosen, else v -= share and on.
// Immutable, so safe for concurrent use.
type OperationChooser struct {
	ops    []Operation
	shares []float64
}

// NewOperationChooser returns the chooser of p, which must pass Validate.
func NewOperationChooser(p Proportions) (*OperationChooser, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	c := &OperationChooser{}
	sum := 0.0
	for _, op := range Operations() {
		if w := p.Of(op); w > 0 {
			c.ops = append(c.ops, op)
			sum += w
		}
	}
	for _, op := range c.ops {
		c.shares = append(c.shares, p.Of(op)/sum)
	}
	return c, nil
}

// Next draws an operation. When rounding leaves v at or above the sum of the shares (a 2^-53 event)
// YCSB throws an AssertionError; this returns the last operation instead.
func (c *OperationChooser) Next(r Source) Operation {
	v := r.Float64()
	for i, pw := range c.shares {
		if v < pw {
			return c.ops[i]
		}
		v -= pw
	}
	return c.ops[len(c.ops)-1]
}

// Ops returns the operations that can be drawn, in draw order.
func (c *OperationChooser) Ops() []Operation { return append([]Operation(nil), c.ops...) }
