package ycsb

import "fmt"

// UniformLong is YCSB's UniformLongGenerator: a value uniform in [lb, ub], both included, drawn as
// lb + |nextLong| mod (ub-lb+1). The modulo's bias is below interval/2^63 (under 10^-9 for any key
// count up to 10^10), as in YCSB.
type UniformLong struct {
	lb, ub, interval int64
}

var _ NumberGenerator = (*UniformLong)(nil)

// NewUniformLong returns the generator of [lb, ub]; lb must not exceed ub (YCSB would divide by zero
// or by a negative interval).
func NewUniformLong(lb, ub int64) (*UniformLong, error) {
	if lb > ub {
		return nil, fmt.Errorf("ycsb: uniform generator: lower bound %d above upper bound %d", lb, ub)
	}
	return &UniformLong{lb: lb, ub: ub, interval: ub - lb + 1}, nil
}

// Next returns a value uniform in [lb, ub].
func (u *UniformLong) Next(r Source) int64 { return nonNegativeLong(r)%u.interval + u.lb }

// Bounds returns lb and ub.
func (u *UniformLong) Bounds() (lb, ub int64) { return u.lb, u.ub }

// Constant is YCSB's ConstantIntegerGenerator: always the same value (fieldlengthdistribution=
// constant).
type Constant int64

var _ NumberGenerator = Constant(0)

// Next returns the constant; it draws nothing from r.
func (c Constant) Next(Source) int64 { return int64(c) }
