package pgscript

import (
	"fmt"
	"math"
	"strconv"
)

// Evaluation follows pgbench.c's evaluateExpr, evalLazyFunc and evalStandardFunc: AND, OR and CASE
// are lazy; any other function given a NULL argument returns NULL (but IS and debug); arithmetic and
// comparisons work on doubles when an operand is a double (but %), else on 64-bit integers with
// overflow errors.

func (e *Env) eval(n *node) (Value, error) {
	switch n.kind {
	case nConst:
		return n.val, nil
	case nVar:
		return e.varValue(n.slot)
	}
	switch n.fn {
	case fnAnd, fnOr:
		return e.evalLogical(n)
	case fnCase:
		for i := 0; i+1 < len(n.args); i += 2 {
			c, err := e.eval(n.args[i])
			if err != nil {
				return Value{}, err
			}
			if truth(c) {
				return e.eval(n.args[i+1])
			}
		}
		return e.eval(n.args[len(n.args)-1])
	case fnLeast, fnGreatest:
		return e.evalExtremum(n)
	}
	var argv [3]Value
	hasNull := false
	for i, a := range n.args {
		v, err := e.eval(a)
		if err != nil {
			return Value{}, err
		}
		argv[i] = v
		hasNull = hasNull || v.kind == KindNull
	}
	if hasNull && n.fn != fnIs && n.fn != fnDebug {
		return Null(), nil
	}
	return e.apply(n, argv[:len(n.args)])
}

func (e *Env) evalLogical(n *node) (Value, error) {
	a, err := e.eval(n.args[0])
	if err != nil {
		return Value{}, err
	}
	if a.kind == KindNull {
		return Null(), nil
	}
	ba, err := coerceBool(a)
	if err != nil {
		return Value{}, err
	}
	if n.fn == fnAnd && !ba {
		return Bool(false), nil
	}
	if n.fn == fnOr && ba {
		return Bool(true), nil
	}
	b, err := e.eval(n.args[1])
	if err != nil {
		return Value{}, err
	}
	if b.kind == KindNull {
		return Null(), nil
	}
	bb, err := coerceBool(b)
	if err != nil {
		return Value{}, err
	}
	return Bool(bb), nil
}

// evalExtremum is least() and greatest(): all arguments are evaluated first (a NULL makes the
// result NULL); the result is a double if any argument is one.
func (e *Env) evalExtremum(n *node) (Value, error) {
	if len(n.args) > maxFuncArgs {
		return Value{}, errorf("too many function arguments, maximum is %d", maxFuncArgs)
	}
	var argv [maxFuncArgs]Value
	hasDouble, hasNull := false, false
	for i, a := range n.args {
		v, err := e.eval(a)
		if err != nil {
			return Value{}, err
		}
		argv[i] = v
		hasDouble = hasDouble || v.kind == KindDouble
		hasNull = hasNull || v.kind == KindNull
	}
	if hasNull {
		return Null(), nil
	}
	args := argv[:len(n.args)]
	least := n.fn == fnLeast
	if hasDouble {
		x, err := coerceDouble(args[0])
		if err != nil {
			return Value{}, err
		}
		for _, a := range args[1:] {
			d, err := coerceDouble(a)
			if err != nil {
				return Value{}, err
			}
			if least && d < x || !least && d > x {
				x = d
			}
		}
		return Double(x), nil
	}
	x, err := coerceInt(args[0])
	if err != nil {
		return Value{}, err
	}
	for _, a := range args[1:] {
		d, err := coerceInt(a)
		if err != nil {
			return Value{}, err
		}
		if least && d < x || !least && d > x {
			x = d
		}
	}
	return Int(x), nil
}

// maxFuncArgs is pgbench's MAX_FARGS.
const maxFuncArgs = 16

// truth is valueTruth: NULL is false, numbers are true when not zero.
func truth(v Value) bool {
	switch v.kind {
	case KindBool, KindInt:
		return v.i != 0
	case KindDouble:
		return v.f != 0
	}
	return false
}

func coerceBool(v Value) (bool, error) {
	if v.kind == KindBool {
		return v.i != 0, nil
	}
	return false, errorf("cannot coerce %s to boolean", v.kind)
}

func coerceInt(v Value) (int64, error) {
	switch v.kind {
	case KindInt:
		return v.i, nil
	case KindDouble:
		d := math.RoundToEven(v.f) // rint
		if math.IsNaN(d) || d < -9223372036854775808.0 || d >= 9223372036854775808.0 {
			return 0, errorf("double to int overflow for %s", fmtF6(d))
		}
		return int64(d), nil
	}
	return 0, errorf("cannot coerce %s to int", v.kind)
}

func coerceDouble(v Value) (float64, error) {
	switch v.kind {
	case KindDouble:
		return v.f, nil
	case KindInt:
		return float64(v.i), nil
	}
	return 0, errorf("cannot coerce %s to double", v.kind)
}

func (e *Env) apply(n *node, args []Value) (Value, error) {
	switch n.fn {
	case fnAdd, fnSub, fnMul, fnDiv, fnMod, fnEQ, fnNE, fnLE, fnLT:
		return arith(n.fn, args[0], args[1])
	case fnBitAnd, fnBitOr, fnBitXor, fnLShift, fnRShift:
		l, err := coerceInt(args[0])
		if err != nil {
			return Value{}, err
		}
		r, err := coerceInt(args[1])
		if err != nil {
			return Value{}, err
		}
		switch n.fn {
		case fnBitAnd:
			return Int(l & r), nil
		case fnBitOr:
			return Int(l | r), nil
		case fnBitXor:
			return Int(l ^ r), nil
		case fnLShift:
			return Int(l << uint64(r&63)), nil // C shifts by the count mod 64 on x86-64
		default:
			return Int(l >> uint64(r&63)), nil
		}
	case fnNot:
		b, err := coerceBool(args[0])
		if err != nil {
			return Value{}, err
		}
		return Bool(!b), nil
	case fnPi:
		return Double(math.Pi), nil
	case fnAbs:
		switch a := args[0]; a.kind {
		case KindInt:
			if a.i < 0 {
				return Int(-a.i), nil
			}
			return a, nil
		case KindDouble:
			return Double(math.Abs(a.f)), nil
		}
		return Value{}, errorf("cannot coerce %s to int or double", args[0].kind)
	case fnDebug:
		e.debug(args[0])
		return args[0], nil
	case fnDouble, fnSqrt, fnLn, fnExp:
		d, err := coerceDouble(args[0])
		if err != nil {
			return Value{}, err
		}
		switch n.fn {
		case fnSqrt:
			d = math.Sqrt(d)
		case fnLn:
			d = math.Log(d)
		case fnExp:
			d = math.Exp(d)
		}
		return Double(d), nil
	case fnInt:
		i, err := coerceInt(args[0])
		if err != nil {
			return Value{}, err
		}
		return Int(i), nil
	case fnRandom, fnRandomExponential, fnRandomGaussian, fnRandomZipfian:
		return e.random(n.fn, args)
	case fnPow:
		l, err := coerceDouble(args[0])
		if err != nil {
			return Value{}, err
		}
		r, err := coerceDouble(args[1])
		if err != nil {
			return Value{}, err
		}
		return Double(math.Pow(l, r)), nil
	case fnIs:
		// pgbench compares the type and the boolean view of the union: permissive, as it says
		return Bool(args[0].kind == args[1].kind && isSame(args[0], args[1])), nil
	case fnHashMurmur2, fnHashFNV1a:
		v, err := coerceInt(args[0])
		if err != nil {
			return Value{}, err
		}
		seed, err := coerceInt(args[1])
		if err != nil {
			return Value{}, err
		}
		if n.fn == fnHashMurmur2 {
			return Int(hashMurmur2(v, uint64(seed))), nil
		}
		return Int(hashFNV1a(v, uint64(seed))), nil
	case fnPermute:
		var iv [3]int64
		for i := range iv {
			x, err := coerceInt(args[i])
			if err != nil {
				return Value{}, err
			}
			iv[i] = x
		}
		if iv[1] <= 0 {
			return Value{}, errorf("permute size parameter must be greater than zero")
		}
		return Int(permute(iv[0], iv[1], iv[2])), nil
	}
	return Value{}, errorf("internal error: unknown function %d", n.fn)
}

// isSame is the "u.bval == u.bval" of pgbench's IS: NULLs are the same, booleans by value, and
// numbers by the low byte of their representation on a little-endian machine (which is what
// reading a bool out of pgbench's union compares).
func isSame(a, b Value) bool {
	switch a.kind {
	case KindNull:
		return true
	case KindBool:
		return a.i == b.i
	case KindInt:
		return byte(a.i) == byte(b.i)
	case KindDouble:
		return byte(math.Float64bits(a.f)) == byte(math.Float64bits(b.f))
	}
	return false
}

func arith(f fn, l, r Value) (Value, error) {
	if (l.kind == KindDouble || r.kind == KindDouble) && f != fnMod {
		ld, err := coerceDouble(l)
		if err != nil {
			return Value{}, err
		}
		rd, err := coerceDouble(r)
		if err != nil {
			return Value{}, err
		}
		switch f {
		case fnAdd:
			return Double(ld + rd), nil
		case fnSub:
			return Double(ld - rd), nil
		case fnMul:
			return Double(ld * rd), nil
		case fnDiv:
			return Double(ld / rd), nil
		case fnEQ:
			return Bool(ld == rd), nil
		case fnNE:
			return Bool(ld != rd), nil
		case fnLE:
			return Bool(ld <= rd), nil
		default:
			return Bool(ld < rd), nil
		}
	}
	li, err := coerceInt(l)
	if err != nil {
		return Value{}, err
	}
	ri, err := coerceInt(r)
	if err != nil {
		return Value{}, err
	}
	switch f {
	case fnAdd:
		s := li + ri
		if (s > li) != (ri > 0) {
			return Value{}, errorf("bigint add out of range")
		}
		return Int(s), nil
	case fnSub:
		s := li - ri
		if (s < li) != (ri > 0) {
			return Value{}, errorf("bigint sub out of range")
		}
		return Int(s), nil
	case fnMul:
		if li != 0 && ri != 0 {
			p := li * ri
			if p/ri != li || (li == -1 && ri == math.MinInt64) || (ri == -1 && li == math.MinInt64) {
				return Value{}, errorf("bigint mul out of range")
			}
			return Int(p), nil
		}
		return Int(0), nil
	case fnEQ:
		return Bool(li == ri), nil
	case fnNE:
		return Bool(li != ri), nil
	case fnLE:
		return Bool(li <= ri), nil
	case fnLT:
		return Bool(li < ri), nil
	}
	// fnDiv, fnMod
	if ri == 0 {
		return Value{}, errorf("division by zero")
	}
	if ri == -1 {
		if f == fnDiv {
			if li == math.MinInt64 {
				return Value{}, errorf("bigint div out of range")
			}
			return Int(-li), nil
		}
		return Int(0), nil
	}
	if f == fnDiv {
		return Int(li / ri), nil
	}
	return Int(li % ri), nil
}

func (e *Env) random(f fn, args []Value) (Value, error) {
	imin, err := coerceInt(args[0])
	if err != nil {
		return Value{}, err
	}
	imax, err := coerceInt(args[1])
	if err != nil {
		return Value{}, err
	}
	if imin > imax {
		return Value{}, errorf("empty range given to random")
	}
	if d := imax - imin; d < 0 || d == math.MaxInt64 { // imax - imin + 1 must not overflow
		return Value{}, errorf("random range is too large")
	}
	if f == fnRandom {
		return Int(getrand(e.Rand, imin, imax)), nil
	}
	param, err := coerceDouble(args[2])
	if err != nil {
		return Value{}, err
	}
	switch f {
	case fnRandomGaussian:
		if !(param >= minGaussianParam) { // NaN too: pgbench would loop forever on it
			return Value{}, errorf("gaussian parameter must be at least %s (not %s)", fmtF6(minGaussianParam), fmtF6(param))
		}
		return Int(gaussianRand(e.Rand, imin, imax, param)), nil
	case fnRandomZipfian:
		if !(param > 0 && param < 1) && !(param >= minZipfianParam && param <= maxZipfianParam) {
			return Value{}, errorf("zipfian parameter must be in range [%.3f, %.0f], or in (0, 1) for candor's YCSB zipfian (not %s)",
				minZipfianParam, maxZipfianParam, fmtF6(param))
		}
		z, err := zipfianRand(e.Rand, imin, imax, param)
		if err != nil {
			return Value{}, err
		}
		return Int(z), nil
	}
	if !(param > 0) {
		return Value{}, errorf("exponential parameter must be greater than zero (not %s)", fmtF6(param))
	}
	return Int(exponentialRand(e.Rand, imin, imax, param)), nil
}

// debug prints the value to the Env's Debug writer as pgbench prints it to stderr.
func (e *Env) debug(v Value) {
	if e.Debug == nil {
		return
	}
	var b []byte
	b = fmt.Appendf(b, "debug(script=%d,command=%d): ", e.script, e.command+1)
	switch v.kind {
	case KindNull:
		b = append(b, "null"...)
	case KindBool:
		b = append(b, "boolean "...)
		b = v.AppendText(b)
	case KindInt:
		b = append(b, "int "...)
		b = v.AppendText(b)
	case KindDouble:
		b = append(b, "double "...)
		b = v.AppendText(b)
	}
	b = append(b, '\n')
	e.Debug.Write(b)
}

// fmtF6 is C's "%f" as PostgreSQL's snprintf prints it (NaN, Infinity, -Infinity).
func fmtF6(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	return strconv.FormatFloat(f, 'f', 6, 64)
}
